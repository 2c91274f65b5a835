import net from 'node:net';

export interface CuttingProxy {
  port: number;
  /** Connections cut so far. */
  readonly cuts: number;
  /**
   * PATCH requests that reached the proxy (a chunk from a client that starts a request line): counted on the network,
   * so a request the browser sends again by itself after a cut on a reused connection counts, as it never shows in
   * the page's own request events.
   */
  readonly patches: number;
  /** Cuts the next connection once it has carried `bytes` more bytes from the client (a PATCH body mid-way). */
  cutAfter(bytes: number): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback in front of `targetPort` that passes everything through, except that it drops a connection
 * (both sides, no answer) once it has carried a set number of client bytes: a network that fails mid-upload.
 */
export async function startCuttingProxy(targetPort: number): Promise<CuttingProxy> {
  let cutAt: number | undefined;
  let cuts = 0;
  let patches = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    sockets.add(client);
    sockets.add(upstream);
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1', 0, 6) === 'PATCH ') patches += 1;
      if (cutAt !== undefined) {
        cutAt -= chunk.length;
        if (cutAt <= 0) {
          cutAt = undefined;
          cuts += 1;
          cut();
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get cuts() {
      return cuts;
    },
    get patches() {
      return patches;
    },
    cutAfter(bytes: number) {
      cutAt = bytes;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
