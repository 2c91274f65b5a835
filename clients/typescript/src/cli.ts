/**
 * `mss`: the media signing service from a shell. Configured by MSS_URL and MSS_API_KEY (or --url and --api-key);
 * the key is never printed, also not in an error.
 */
import { mkdirSync, openAsBlob, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type JobStatus } from './index.js';
import { describeError, withRetries } from './cli/retry.js';
import { signCommand } from './cli/sign.js';
import { verdictInWords } from './cli/verdict.js';
import { downloadInto } from './cli/download.js';

const USAGE = `Usage: mss <command> [options]

Commands:
  sign <files or folders...> --out DIR   upload, sign, wait for and download every file into DIR
        [--title T] [--creator C] [--template ID] [--concurrency N (4)]
        (the title defaults to each file's name; run the same command again to resume: nothing is signed twice)
  verify <file> [--json]                 the service's verdict on a file (exit 0 only when Trusted)
  jobs [--status S] [--limit N] [--cursor C] [--json]
                                         the organisation's sign jobs, newest first
  download <job-id> --out DIR            a job's signed file (waits for the job)

Options:
  --url URL          the service (or MSS_URL)
  --api-key KEY      an organisation API key (or MSS_API_KEY, better: a flag shows in the process list)
  -h, --help         this text
  -v, --version      the client's version (the service's)
`;

class UsageError extends Error {}

function version(): string {
  // dist/cli.js and src/cli.ts both sit one level below the package's root.
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/**
 * Everything written to stdout or stderr from here on has every one of the keys blanked out, whichever path wrote
 * it; the longest first, so that a key another one begins with leaves nothing of it behind.
 */
function neverPrint(secrets: readonly string[]): void {
  const keys = [...new Set(secrets.filter((s) => s !== ''))].sort((a, b) => b.length - a.length);
  if (keys.length === 0) return;
  const blank = (text: string) => keys.reduce((out, key) => out.split(key).join('[api key]'), text);
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' || Buffer.isBuffer(chunk) ? blank(chunk.toString()) : chunk, ...rest)) as typeof stream.write;
  }
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--${name} must be a positive whole number`);
  return Number(value);
}

/**
 * Every key given on the command line (--api-key may come more than once; the last one is used), found before
 * parsing so that not even a parse error can show one.
 */
function keysInArgs(argv: readonly string[]): string[] {
  return argv.flatMap((a, at) => (a.startsWith('--api-key=') ? [a.slice('--api-key='.length)] : a === '--api-key' && at + 1 < argv.length ? [argv[at + 1]!] : []));
}

async function main(argv: string[]): Promise<number> {
  neverPrint([...keysInArgs(argv), process.env.MSS_API_KEY ?? '']);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'api-key': { type: 'string' },
      out: { type: 'string', short: 'o' },
      title: { type: 'string' },
      creator: { type: 'string' },
      template: { type: 'string' },
      concurrency: { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const apiKey = values['api-key'] ?? process.env.MSS_API_KEY ?? '';
  const [command, ...args] = positionals;
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (!['sign', 'verify', 'jobs', 'download'].includes(command)) throw new UsageError(`unknown command ${command}`);

  const baseUrl = values.url ?? process.env.MSS_URL;
  if (!baseUrl) throw new UsageError('the service is not set: MSS_URL or --url');
  if (!/^https?:\/\//.test(baseUrl)) throw new UsageError('MSS_URL / --url must be an http or https URL');
  if (apiKey === '') throw new UsageError('no API key: MSS_API_KEY or --api-key');
  const client = createClient({ baseUrl, apiKey });

  switch (command) {
    case 'sign': {
      if (args.length === 0) throw new UsageError('mss sign needs files or folders');
      if (!values.out) throw new UsageError('mss sign needs --out DIR');
      if (values.creator === undefined && values.template === undefined) throw new UsageError('mss sign needs --creator or --template (a template that gives the creator)');
      return signCommand(client, args, {
        outDir: values.out,
        title: values.title,
        creator: values.creator,
        template: values.template,
        concurrency: positiveInt('concurrency', values.concurrency, 4),
      });
    }
    case 'verify': {
      if (args.length !== 1) throw new UsageError('mss verify takes one file');
      const file = args[0]!;
      const verdict = await withRetries(async () => client.verify(await openAsBlob(file), path.basename(file)));
      process.stdout.write(values.json ? `${JSON.stringify(verdict, null, 2)}\n` : verdictInWords(verdict));
      return verdict.validation_state === 'Trusted' ? 0 : 1;
    }
    case 'jobs': {
      const page = await withRetries(() =>
        client.jobs({ limit: positiveInt('limit', values.limit, 20), ...(values.cursor ? { cursor: values.cursor } : {}), ...(values.status ? { status: values.status as JobStatus } : {}) }),
      );
      if (values.json) {
        process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
        return 0;
      }
      for (const job of page.jobs) {
        process.stdout.write(`${job.job_id}  ${job.status.padEnd(10)}  ${job.created_at}  ${job.manifest.title ?? ''}${job.error ? `  (${job.error.code})` : ''}\n`);
      }
      if (page.next_cursor) process.stdout.write(`more: mss jobs --cursor ${page.next_cursor}\n`);
      return 0;
    }
    default: {
      if (args.length !== 1) throw new UsageError('mss download takes one job id');
      if (!values.out) throw new UsageError('mss download needs --out DIR');
      mkdirSync(values.out, { recursive: true });
      const written = await downloadInto(client, args[0]!, values.out);
      process.stdout.write(`${written}\n`);
      return 0;
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`mss: ${describeError(err)}\n${usage ? 'mss --help shows the commands\n' : ''}`);
    process.exitCode = usage ? 2 : 1;
  },
);
