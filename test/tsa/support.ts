import type { Server } from 'node:http';
import { listenServer } from '../../ocsp/http-server.js';
import { createTsaServer, type TsaServerOptions } from '../../ocsp/tsa-server.js';
import { TimeStampAuthority, type TimeStampAuthorityOptions } from '../../shared/tsa/authority.js';
import type { TsaIdentity } from '../../shared/tsa/token.js';
import type { TestChain } from '../pki/helpers.js';

export const TEST_POLICY = '1.3.6.1.4.1.99999.3161.1';

/** The TSA identity of a chain issued by the project's own certificate code (test/pki/helpers.ts). */
export function tsaIdentityOf(chain: TestChain): TsaIdentity {
  return {
    key: chain.keys.tsa,
    chainDer: [chain.tsa.der, chain.subCa.der],
    serial: chain.tsa.facts.serialHex,
    notBefore: chain.tsa.facts.notBefore,
    notAfter: chain.tsa.facts.notAfter,
  };
}

export interface RunningTsa {
  url: string;
  port: number;
  authority: TimeStampAuthority;
  server: Server;
  close(): Promise<void>;
}

/** The service's TSA core and HTTP front on 127.0.0.1 (a free port), signing with a fixed identity. */
export async function startTestTsa(
  identity: TsaIdentity | (() => Promise<TsaIdentity>),
  options: Partial<TimeStampAuthorityOptions> & { http?: TsaServerOptions } = {},
): Promise<RunningTsa> {
  const { http: httpOptions, ...tsaOptions } = options;
  const authority = new TimeStampAuthority({
    identity: typeof identity === 'function' ? identity : async () => identity,
    policy: TEST_POLICY,
    ...tsaOptions,
  });
  const server = createTsaServer(authority, httpOptions);
  const { port } = await listenServer(server, 0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    authority,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
