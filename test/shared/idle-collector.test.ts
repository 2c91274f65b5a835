import { expect } from 'chai';
import { IdleCollector } from '../../shared/idle-collector.js';

describe('collecting garbage when the process goes idle', () => {
  it('collects once in the first idle period after work, and not again until there was work', () => {
    const collector = new IdleCollector();
    // Started idle: nothing to collect.
    expect([0, 0.1].map((u) => collector.period(u))).to.deep.equal([false, false]);
    // A burst of work, then idle: one collection.
    expect([0.4, 0.9, 0.1, 0, 0.05].map((u) => collector.period(u))).to.deep.equal([false, false, true, false, false]);
    // Work below the idle threshold is not a burst.
    expect([0.249, 0].map((u) => collector.period(u))).to.deep.equal([false, false]);
    expect([0.25, 0].map((u) => collector.period(u))).to.deep.equal([false, true]);
  });
});
