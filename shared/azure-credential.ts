import type { TokenCredential } from '@azure/core-auth';

/**
 * The credential an Azure driver uses: the one given, or DefaultAzureCredential (environment, workload or managed
 * identity, `az login`, ...). @azure/identity is imported here, by a driver that is about to talk to Azure, so that a
 * process configured for the local vault and local files never loads it.
 */
export async function azureCredential(given: TokenCredential | undefined): Promise<TokenCredential> {
  if (given) return given;
  const { DefaultAzureCredential } = await import('@azure/identity');
  return new DefaultAzureCredential();
}
