/**
 * How many outbound requests remote-manifest fetches may make per minute: per client address that caused them
 * (REMOTE_MANIFESTS_PER_ADDRESS) and per host they go to (REMOTE_MANIFESTS_PER_HOST). Every request counts, each
 * redirect hop included: one address once made 120 GETs in 5 s (30 verifies x 3 redirects), and many addresses
 * together could aim the service at one third party's server.
 */
import { ApiError } from '../errors.js';

const WINDOW_MS = 60_000;

/** Times of the requests each key made within the last minute, oldest first. */
class MinuteWindow {
  private readonly times = new Map<string, number[]>();
  private sinceSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  /** Seconds until `key` may make another request; 0 when it may now. */
  waitSeconds(key: string): number {
    const times = this.current(key);
    return times.length < this.limit ? 0 : Math.max(1, Math.ceil((times[0]! + WINDOW_MS - this.now()) / 1000));
  }

  record(key: string): void {
    this.times.set(key, [...this.current(key), this.now()]);
    // Keys whose minute has passed are dropped now and then, so one-off addresses do not pile up.
    if (++this.sinceSweep >= 1000) {
      this.sinceSweep = 0;
      for (const k of [...this.times.keys()]) if (this.current(k).length === 0) this.times.delete(k);
    }
  }

  private current(key: string): number[] {
    const since = this.now() - WINDOW_MS;
    const times = (this.times.get(key) ?? []).filter((t) => t > since);
    if (times.length === 0) this.times.delete(key);
    else this.times.set(key, times);
    return times;
  }
}

export class FetchBudgets {
  private readonly perAddress: MinuteWindow;
  private readonly perHost: MinuteWindow;

  constructor(
    private readonly limits: { perAddress: number; perHost: number },
    now: () => number = Date.now,
  ) {
    this.perAddress = new MinuteWindow(limits.perAddress, now);
    this.perHost = new MinuteWindow(limits.perHost, now);
  }

  /**
   * Counts one request for `client` to `host`, or refuses it, counting nothing: 429 remote_fetch_rate_limited when
   * the client has made its allowance (its fault), 503 remote_host_busy when the host has had its (not the client's).
   */
  take(client: string, host: string): void {
    const clientWait = this.perAddress.waitSeconds(client);
    if (clientWait > 0) {
      throw new ApiError(
        'rate_limited',
        'remote_fetch_rate_limited',
        `this address has had ${this.limits.perAddress} remote-manifest requests in the last minute (REMOTE_MANIFESTS_PER_ADDRESS; each redirect counts)`,
        { retryAfterSeconds: clientWait },
      );
    }
    const hostKey = host.toLowerCase();
    const hostWait = this.perHost.waitSeconds(hostKey);
    if (hostWait > 0) {
      throw new ApiError('unavailable', 'remote_host_busy', `${host} has been sent ${this.limits.perHost} remote-manifest requests in the last minute (REMOTE_MANIFESTS_PER_HOST)`, {
        retryAfterSeconds: hostWait,
      });
    }
    this.perAddress.record(client);
    this.perHost.record(hostKey);
  }
}
