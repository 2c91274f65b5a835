/**
 * The C2PA conformance program's asset rubrics, evaluated as they are (test/fixtures/asset-rubrics/, through
 * test/support/asset-rubric.ts) over the crJSON report c2pa-rs writes for files the service signed:
 * - every signable format, signed with default settings through the API and the worker's signing code, and a signed
 *   file signed again (c2pa.opened on its parent), read Trusted with the service root and pass every trait of the
 *   spec 2.4 and integrity profiles, and every trait of the spec 2.2 profile but one (see SPEC_2_2_CONFLICT);
 * - the same, signed again by the same desk's worker code with C2PA_SPEC_VERSION=2.2, declare 2.2 and pass every trait
 *   of the spec 2.2 profile as it comes (expected version 2.2) and of the integrity profile;
 * - a manifest built as the service built it before (stds.schema-org.CreativeWork, actions gathered, no
 *   allActionsIncluded, no specVersion) fails the traits it should, and still shows the same creator, publisher and
 *   copyright when read;
 * - the evaluator refuses a profile it cannot run, and an expression that throws is an error, never a pass.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildManifestDefinition, PARENT_INGREDIENT_ID, SERVICE_NAME, SERVICE_VERSION, type ManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { trustSettings } from '../../shared/c2pa/settings.js';
import { signAsset } from '../../shared/c2pa/sign-asset.js';
import { DEFAULT_C2PA_SPEC_VERSION } from '../../shared/c2pa/spec-version.js';
import { c2paWasm } from '../../shared/c2pa/wasm.js';
import { DEFAULT_DIGITAL_SOURCE_TYPE, type ManifestInput } from '../../shared/domain/manifest-input.js';
import { createLogger } from '../../shared/logger.js';
import { MEDIA_FORMATS } from '../../shared/media/formats.js';
import { LocalJobEvents } from '../../shared/queue/job-events.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { processSignJob } from '../../workers/sign-job.js';
import { signJobDeps, type SignJobDeps } from '../../workers/sign-job/deps.js';
import type { Samples } from '../media/samples.js';
import { openSigningDesk } from '../media/signing-desk.js';
import { downloadFile, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import { loadRubric, unmet, type Rubric } from '../support/asset-rubric.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { fixture } from './helpers.js';

const profile = (name: string) => loadRubric(new URL(`../fixtures/asset-rubrics/${name}`, import.meta.url).pathname);
const SPEC_2_2 = 'asset-rubric-conformance0.2-spec2.2.yml';
const SPEC_2_4 = 'asset-rubric-conformance0.2-spec2.4.yml';
const INTEGRITY = 'asset-rubric-integrity.yml';

/**
 * The one trait of the spec 2.2 profile no file can pass together with the spec 2.4 profile: both profiles hold
 * `validation:mandatory_spec_version`, which requires claim_generator_info.specVersion to be absent or of the
 * profile's own major.minor under 2.2, and present and 2.4 under 2.4. The manifests declare 2.4 by default, so
 * the 2.2 profile finds ["2.4"]. Evaluated with the version the file declares (the reference evaluator's
 * --spec-version), the 2.2 profile passes whole. With C2PA_SPEC_VERSION=2.2 it is the other way round
 * (SPEC_2_4_CONFLICT).
 */
const SPEC_2_2_CONFLICT = 'C2PA Asset Conformance 0.2 Spec 2.2 Rubric: validation:mandatory_spec_version false ["2.4"]';
const SPEC_2_4_CONFLICT = 'C2PA Asset Conformance 0.2 Spec 2.4 Rubric: validation:mandatory_spec_version false ["2.2"]';

/** c2pa-rs's crJSON report of the file, validated against `anchors` only. */
async function crJsonOf(bytes: Uint8Array, mimeType: string, anchors: string): Promise<unknown> {
  const reader = await c2paWasm().WasmReader.fromBytes(mimeType, bytes, trustSettings({ trustAnchorsPem: anchors }));
  try {
    return JSON.parse(reader.crJson());
  } finally {
    reader.free();
  }
}

/** What every file the service signs must meet: the traits of all three profiles (bar the 2.2 / 2.4 conflict). */
function expectConformant(rubrics: Record<string, Rubric>, crJson: unknown, what: string): void {
  expect(declaredSpecVersion(crJson), what).to.equal(DEFAULT_C2PA_SPEC_VERSION);
  expect(unmet(rubrics[SPEC_2_4]!.evaluate(crJson)), `${what}: spec 2.4`).to.deep.equal([]);
  expect(unmet(rubrics[INTEGRITY]!.evaluate(crJson)), `${what}: integrity`).to.deep.equal([]);
  expect(unmet(rubrics[SPEC_2_2]!.evaluate(crJson)), `${what}: spec 2.2`).to.deep.equal([SPEC_2_2_CONFLICT]);
  expect(unmet(rubrics[SPEC_2_2]!.evaluate(crJson, { specVersion: DEFAULT_C2PA_SPEC_VERSION })), `${what}: spec 2.2 profile, declared version`).to.deep.equal([]);
}

/**
 * What a file signed with C2PA_SPEC_VERSION=2.2 must meet: every trait of the spec 2.2 profile, evaluated as it comes
 * (expected version 2.2, no override), and of the integrity profile. The 2.4 profile fails it on the declared version
 * alone: nothing else the service writes is 2.4-only.
 */
function expectConformant22(rubrics: Record<string, Rubric>, crJson: unknown, what: string): void {
  expect(declaredSpecVersion(crJson), what).to.equal('2.2');
  const spec22 = rubrics[SPEC_2_2]!.evaluate(crJson);
  expect(spec22.expectedSpecVersion).to.equal('2.2');
  expect(unmet(spec22), `${what}: spec 2.2`).to.deep.equal([]);
  expect(unmet(rubrics[INTEGRITY]!.evaluate(crJson)), `${what}: integrity`).to.deep.equal([]);
  expect(unmet(rubrics[SPEC_2_4]!.evaluate(crJson)), `${what}: spec 2.4`).to.deep.equal([SPEC_2_4_CONFLICT]);
}

/** The specVersion of the active manifest's claim_generator_info (crJSON gives the claim's one entry as an object). */
function declaredSpecVersion(crJson: unknown): unknown {
  return (crJson as { manifests: { 'claim.v2'?: { claim_generator_info?: { specVersion?: unknown } } }[] }).manifests[0]?.['claim.v2']?.claim_generator_info?.specVersion;
}

/** The definition as the service built it before C2PA 2.2 conformance (commit ad35e54), for the negative cases. */
function legacyDefinition(input: ManifestInput, sourceHasManifest: boolean): ManifestDefinition {
  const softwareAgent = { name: SERVICE_NAME, version: SERVICE_VERSION };
  const inception = sourceHasManifest
    ? { action: 'c2pa.opened', softwareAgent, parameters: { ingredientIds: [PARENT_INGREDIENT_ID] } }
    : { action: 'c2pa.created', softwareAgent, digitalSourceType: DEFAULT_DIGITAL_SOURCE_TYPE };
  const creativeWork: Record<string, unknown> = {
    '@context': 'https://schema.org',
    '@type': 'CreativeWork',
    author: [{ '@type': 'Person', name: input.creator }],
  };
  if (input.publisher) creativeWork.publisher = { '@type': 'Organization', name: input.publisher.name };
  if (input.copyrightHolder) creativeWork.copyrightHolder = { '@type': 'Organization', name: input.copyrightHolder.name };
  if (input.copyrightNotice) creativeWork.copyrightNotice = input.copyrightNotice;
  return {
    claim_generator_info: [softwareAgent],
    title: input.title,
    assertions: [
      { label: 'c2pa.actions.v2', data: { actions: [inception] } },
      { label: 'stds.schema-org.CreativeWork', data: creativeWork },
    ],
  };
}

describe('c2pa: asset rubrics of the C2PA conformance program', function () {
  const rubrics: Record<string, Rubric> = {};
  before(() => {
    for (const name of [SPEC_2_2, SPEC_2_4, INTEGRITY]) rubrics[name] = profile(name);
  });

  describe('every signable format signed through the service, and a re-signed file', function () {
    this.timeout(240_000);
    let api: TestApi;
    let acc: Account;
    let rootPem: string;
    let deps: SignJobDeps;
    /** The same worker code, its deps made by signJobDeps from the desk's configuration with C2PA_SPEC_VERSION=2.2. */
    let deps22: SignJobDeps;
    let samples: Samples;
    let dir: string;
    const signedJpeg: { bytes?: Buffer } = {};

    before(async () => {
      ({ api, acc, rootPem, deps, samples, dir } = await openSigningDesk('Rubric Desk'));
      const config = { ...api.config, c2paSpecVersion: '2.2' as const };
      deps22 = { ...signJobDeps({ config, knex: api.db.knex, vault: createKeyVault(config), events: new LocalJobEvents(), logger: createLogger('silent', 'test') }), tempDir: deps.tempDir };
    });
    after(async () => {
      await api?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    async function signThroughService(bytes: Buffer, manifest: Record<string, unknown>, worker = deps): Promise<{ signed: Buffer; mimeType: SignableMimeType }> {
      const jobId = await submitSign(api.app, acc, bytes, 'upload.bin', manifest);
      await processSignJob(worker, jobId, { number: 1, final: true });
      const job = await waitForJob(api.app, acc, jobId);
      expect(job.status, JSON.stringify(job.error)).to.equal('signed');
      return { signed: await downloadFile(api.app, acc, job.signed_file.download_url), mimeType: job.signed_file.mime_type as SignableMimeType };
    }

    for (const format of MEDIA_FORMATS) {
      it(`${format.label} (${format.mimeType})`, async () => {
        const { signed, mimeType } = await signThroughService(samples[format.mimeType], { title: format.label, creator: 'Desk' });
        expect(mimeType).to.equal(format.mimeType);
        if (mimeType === 'image/jpeg') signedJpeg.bytes = signed;
        const report = await readAsset(signed, mimeType, { trustAnchorsPem: rootPem });
        expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
        expect(report.manifest?.creator).to.equal('Desk');
        expectConformant(rubrics, await crJsonOf(signed, mimeType, rootPem), format.label);
      });
    }

    it('a signed file signed again: c2pa.opened with allActionsIncluded, the parent ingredient titled as the parent', async function () {
      const parent = signedJpeg.bytes ?? (await signThroughService(samples['image/jpeg'], { title: 'Parent', creator: 'Desk' })).signed;
      const parentTitle = (await readAsset(parent, 'image/jpeg', { trustAnchorsPem: rootPem })).manifest?.title;
      const { signed } = await signThroughService(parent, { title: 'Re-signed', creator: 'Second Desk' });
      const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
      expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
      expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
      // (The worker signs without trust anchors, so c2pa-rs records the parent's signer as untrusted in the ingredient:
      // the active manifest is what is judged here.)
      expect(report.manifest?.ingredients.map((i) => [i.title, i.relationship])).to.deep.equal([[parentTitle, 'parentOf']]);
      expect(parentTitle).to.not.equal('Re-signed');
      const crJson = (await crJsonOf(signed, 'image/jpeg', rootPem)) as { manifests: { assertions: Record<string, { allActionsIncluded?: unknown }> }[] };
      expect(crJson.manifests).to.have.length(2);
      expect(crJson.manifests[0]!.assertions['c2pa.actions.v2']!.allActionsIncluded).to.equal(true);
      expectConformant(rubrics, crJson, 're-signed JPEG');
    });

    describe('signed with C2PA_SPEC_VERSION=2.2 (the same desk: one more signing pass)', function () {
      const signedJpeg22: { bytes?: Buffer } = {};

      for (const format of MEDIA_FORMATS) {
        it(`${format.label} (${format.mimeType})`, async () => {
          const { signed, mimeType } = await signThroughService(samples[format.mimeType], { title: format.label, creator: 'Desk' }, deps22);
          expect(mimeType).to.equal(format.mimeType);
          if (mimeType === 'image/jpeg') signedJpeg22.bytes = signed;
          const report = await readAsset(signed, mimeType, { trustAnchorsPem: rootPem });
          expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
          expectConformant22(rubrics, await crJsonOf(signed, mimeType, rootPem), format.label);
        });
      }

      it('a signed file signed again (c2pa.opened)', async () => {
        const parent = signedJpeg22.bytes ?? (await signThroughService(samples['image/jpeg'], { title: 'Parent', creator: 'Desk' }, deps22)).signed;
        const { signed } = await signThroughService(parent, { title: 'Re-signed', creator: 'Second Desk' }, deps22);
        const report = await readAsset(signed, 'image/jpeg', { trustAnchorsPem: rootPem });
        expect(report.validation_state, JSON.stringify(report.status.failure)).to.equal('Trusted');
        expect(report.manifest?.actions).to.deep.equal(['c2pa.opened']);
        expectConformant22(rubrics, await crJsonOf(signed, 'image/jpeg', rootPem), 're-signed JPEG');
      });
    });
  });

  describe('a manifest built the old way, and the fields the views show', function () {
    let chain: OpensslChain;
    let photo: Uint8Array;
    const input: ManifestInput = {
      title: 'Harbour',
      creator: 'Ada Lovelace',
      publisher: { name: 'Daily Example' },
      copyrightHolder: { name: 'Example Ltd', url: 'https://example.com' },
      copyrightNotice: '© 2026 Example Ltd',
      dateCreated: '2026-01-02',
      description: 'Boats',
    };
    const sign = (bytes: Uint8Array, manifest: ManifestDefinition) =>
      signAsset({ bytes, mimeType: 'image/jpeg', manifest, key: chain.keys.leaf, chainDer: [chain.der.leaf, chain.der.subCa], trustAnchorsPem: chain.pem.root });

    before(async () => {
      [chain, photo] = await Promise.all([makeOpensslChain(), fixture('photo.jpg')]);
    });
    after(() => {
      if (chain) rmSync(chain.dir, { recursive: true, force: true });
    });

    it('fails the actions, deprecation and specVersion traits (and, re-signed, allActionsIncluded on c2pa.opened); integrity still passes', async () => {
      const created = await sign(photo, legacyDefinition(input, false));
      const crJson = await crJsonOf(created, 'image/jpeg', chain.pem.root);
      const failed = (name: string, data: unknown) => rubrics[name]!.evaluate(data).results.filter((r) => r.outcome !== 'true').map((r) => [r.id, r.outcome, r.matches ?? null]);
      expect(failed(SPEC_2_4, crJson)).to.deep.equal([
        ['validation:mandatory_spec_version', 'false', ['missing']],
        ['validation:mandatory_all_actions_included', 'false', null],
        ['validation:inception_action_position', 'false', null],
        ['validation:no_deprecated_assertions', 'false', ['stds.schema-org.CreativeWork']],
      ]);
      // Spec 2.2 does not ask for specVersion.
      expect(failed(SPEC_2_2, crJson)).to.deep.equal([
        ['validation:mandatory_all_actions_included', 'false', null],
        ['validation:inception_action_position', 'false', null],
        ['validation:no_deprecated_assertions', 'false', ['stds.schema-org.CreativeWork']],
      ]);
      expect(failed(INTEGRITY, crJson)).to.deep.equal([]);

      const reopened = await sign(created, legacyDefinition({ ...input, title: 'Harbour, again' }, true));
      const reopenedIds = failed(SPEC_2_4, await crJsonOf(reopened, 'image/jpeg', chain.pem.root)).map(([id]) => id);
      expect(reopenedIds).to.include('validation:all_actions_included_opened');
      // The same file signed the new way passes.
      const now = await sign(created, buildManifestDefinition({ ...input, title: 'Harbour, again' }, { sourceHasManifest: true }));
      expectConformant(rubrics, await crJsonOf(now, 'image/jpeg', chain.pem.root), 're-signed old-style file');
    });

    it('shows the same creator, publisher and copyright for a file signed before the change (CreativeWork) and after (cawg.metadata)', async () => {
      const [before, after] = await Promise.all([sign(photo, legacyDefinition(input, false)), sign(photo, buildManifestDefinition(input, { sourceHasManifest: false }))]);
      const shown = async (bytes: Uint8Array) => {
        const m = (await readAsset(bytes, 'image/jpeg', { trustAnchorsPem: chain.pem.root })).manifest!;
        return { creator: m.creator, publisher: m.publisher, copyright_holder: m.copyright_holder, copyright_notice: m.copyright_notice };
      };
      const expected = { creator: 'Ada Lovelace', publisher: 'Daily Example', copyright_holder: 'Example Ltd', copyright_notice: '© 2026 Example Ltd' };
      expect(await shown(before)).to.deep.equal(expected);
      expect(await shown(after)).to.deep.equal(expected);
      const assertions = (await readAsset(after, 'image/jpeg', { trustAnchorsPem: chain.pem.root })).manifest!.assertions;
      expect(assertions).to.include.members(['c2pa.actions.v2', 'c2pa.metadata', 'cawg.metadata']);
      expect(assertions).to.not.include('stds.schema-org.CreativeWork');
    });
  });

  describe('the evaluator', function () {
    let dir: string;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'rubric-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));
    const write = (name: string, text: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    };

    it('refuses a profile that calls a function json-formula does not have, or does not compile', () => {
      const unknownFn = write('unknown.yml', 'expressions:\n  _x: noSuchFunction(@)\n---\n- id: t\n  expression: _x()\n');
      expect(() => loadRubric(unknownFn)).to.throw(/noSuchFunction\(\), which json-formula does not have/);
      const unknownInTrait = write('unknown-trait.yml', 'variables: {}\n---\n- id: t\n  expression: alsoMissing(manifests)\n');
      expect(() => loadRubric(unknownInTrait)).to.throw(/trait t calls alsoMissing\(\)/);
      const broken = write('broken.yml', 'variables: {}\n---\n- id: t\n  expression: "manifests[?"\n');
      expect(() => loadRubric(broken)).to.throw(/trait t does not compile/);
    });

    it('decides outcomes as the reference evaluator: failIfMatched, warnIfMatched, truthiness; an expression that throws is an error', () => {
      const rubric = loadRubric(
        write(
          'outcomes-spec2.4.yml',
          [
            'variables:',
            '  $codes: [a]',
            'expressions:',
            '  _first: $args[0][0]',
            '---',
            '- id: fail_empty',
            '  failIfMatched: true',
            '  expression: items[?contains($codes, @)]',
            '- id: fail_matched',
            '  failIfMatched: true',
            '  expression: items',
            '- id: warn_matched',
            '  warnIfMatched: true',
            '  expression: items',
            '- id: empty_list',
            '  expression: none',
            '- id: zero',
            '  expression: "`0`"',
            '- id: string',
            '  expression: "`\\"\\"`"',
            '- id: missing_field',
            '  expression: nothing.here',
            '- id: named_expression_args',
            '  expression: _first(items) == "b"',
            '- id: spec_from_file_name',
            '  expression: $expected_spec_version == "2.4"',
            '- id: throws',
            '  expression: items + `{}`',
          ].join('\n'),
        ),
      );
      const report = rubric.evaluate({ items: ['b', 'c'], none: [] });
      expect(report.expectedSpecVersion).to.equal('2.4');
      expect(Object.fromEntries(report.results.map((r) => [r.id, r.outcome]))).to.deep.equal({
        fail_empty: 'true',
        fail_matched: 'false',
        warn_matched: 'warn',
        empty_list: 'false',
        zero: 'false',
        string: 'true',
        missing_field: 'false',
        named_expression_args: 'true',
        spec_from_file_name: 'true',
        throws: 'error',
      });
      expect(unmet(report)).to.have.length(6);
    });
  });
});
