import { expect } from 'chai';
import {
  buildManifestDefinition,
  C2PA_METADATA_LABEL,
  CAWG_METADATA_LABEL,
  CLAIM_THUMBNAIL_ID,
  opensParentIngredient,
  PARENT_INGREDIENT_ID,
  SERVICE_NAME,
  SERVICE_VERSION,
  TRAINING_MINING_LABEL,
} from '../../shared/c2pa/manifest-definition.js';
import { ManifestInputError, mergeManifest, parseManifestDefaults, parseManifestInput, parseManifestRequest, TEMPLATE_FIELDS } from '../../shared/c2pa/parse-manifest.js';
import { DEFAULT_DIGITAL_SOURCE_TYPE } from '../../shared/domain/manifest-input.js';

function inputError(fn: () => unknown): ManifestInputError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ManifestInputError);
    return err as ManifestInputError;
  }
  throw new Error('expected ManifestInputError');
}

const METADATA_CONTEXT = {
  dc: 'http://purl.org/dc/elements/1.1/',
  photoshop: 'http://ns.adobe.com/photoshop/1.0/',
  plus: 'http://ns.useplus.org/ldf/xmp/1.0/',
  xmpDM: 'http://ns.adobe.com/xmp/1.0/DynamicMedia/',
  xmpRights: 'http://ns.adobe.com/xap/1.0/rights/',
};

describe('c2pa: manifest definition', function () {
  it('records c2pa.created (a created assertion, all actions included) with the default IPTC digitalCapture source type, the creator as dc:creator, the service and spec version as generator', function () {
    const def = buildManifestDefinition({ title: ' Sunrise ', creator: 'Ada Lovelace' }, { sourceHasManifest: false });
    expect(def.title).to.equal('Sunrise');
    expect(def.claim_generator_info).to.deep.equal([{ name: SERVICE_NAME, version: SERVICE_VERSION, specVersion: '2.4' }]);
    expect(SERVICE_NAME).to.equal('media-signing-service');
    expect(SERVICE_VERSION).to.match(/^\d+\.\d+\.\d+/);
    expect(def.assertions).to.deep.equal([
      {
        label: 'c2pa.actions.v2',
        created: true,
        data: {
          actions: [
            {
              action: 'c2pa.created',
              softwareAgent: { name: SERVICE_NAME, version: SERVICE_VERSION },
              digitalSourceType: DEFAULT_DIGITAL_SOURCE_TYPE,
            },
          ],
          allActionsIncluded: true,
        },
      },
      {
        label: 'cawg.metadata',
        data: { '@context': METADATA_CONTEXT, 'dc:creator': ['Ada Lovelace'] },
      },
    ]);
    expect(DEFAULT_DIGITAL_SOURCE_TYPE).to.equal('http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture');
    expect(opensParentIngredient(def)).to.equal(false);
  });

  it('carries description, dateCreated and a chosen digitalSourceType', function () {
    const def = buildManifestDefinition(
      {
        title: 'T',
        creator: 'C',
        description: 'line one\nline two',
        dateCreated: '2024-02-29',
        digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
      },
      { sourceHasManifest: false },
    );
    expect(def.assertions[0]!.data).to.have.nested.property(
      'actions[0].digitalSourceType',
      'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
    );
    // The date in C2PA's own metadata assertion (IPTC Date Created, an allowed field), the description in CAWG's.
    expect(def.assertions[1]).to.deep.equal({
      label: C2PA_METADATA_LABEL,
      created: true,
      data: { '@context': { photoshop: 'http://ns.adobe.com/photoshop/1.0/' }, 'photoshop:DateCreated': '2024-02-29' },
    });
    expect(def.assertions[2]!.label).to.equal(CAWG_METADATA_LABEL);
    expect(def.assertions[2]!.data).to.include({ 'dc:description': 'line one\nline two' });
  });

  it('records c2pa.opened on the parent ingredient when the source already has a manifest', function () {
    const def = buildManifestDefinition({ title: 'T', creator: 'C' }, { sourceHasManifest: true });
    expect(def.assertions[0]!.data).to.deep.equal({
      actions: [
        {
          action: 'c2pa.opened',
          softwareAgent: { name: SERVICE_NAME, version: SERVICE_VERSION },
          parameters: { ingredientIds: [PARENT_INGREDIENT_ID] },
        },
      ],
      allActionsIncluded: true,
    });
    expect(def.assertions[0]!.created).to.equal(true);
    expect(opensParentIngredient(def)).to.equal(true);
  });

  it('declares the spec version it is given (C2PA_SPEC_VERSION): 2.2 changes claim_generator_info and nothing else', function () {
    for (const sourceHasManifest of [false, true]) {
      const input = { title: 'T', creator: 'C', dateCreated: '2024-02-29', trainingMining: { 'cawg.data_mining': { use: 'notAllowed' as const } }, thumbnail: true };
      const byDefault = buildManifestDefinition(input, { sourceHasManifest });
      const asked24 = buildManifestDefinition(input, { sourceHasManifest, specVersion: '2.4' });
      const asked22 = buildManifestDefinition(input, { sourceHasManifest, specVersion: '2.2' });
      expect(asked24).to.deep.equal(byDefault);
      expect(asked22.claim_generator_info).to.deep.equal([{ name: SERVICE_NAME, version: SERVICE_VERSION, specVersion: '2.2' }]);
      expect({ ...asked22, claim_generator_info: byDefault.claim_generator_info }).to.deep.equal(byDefault);
    }
  });

  const bad: [string, unknown, string][] = [
    ['(root)', null, 'must be an object'],
    ['(root)', ['title'], 'must be an object'],
    ['title', { creator: 'C' }, 'is required'],
    ['title', { title: 42, creator: 'C' }, 'must be a string'],
    ['title', { title: '   ', creator: 'C' }, 'must not be empty'],
    ['title', { title: 'x'.repeat(257), creator: 'C' }, 'at most 256'],
    ['title', { title: 'a\nb', creator: 'C' }, 'control characters'],
    ['creator', { title: 'T' }, 'is required'],
    ['creator', { title: 'T', creator: { name: 'x' } }, 'must be a string'],
    ['creator', { title: 'T', creator: 'nul\u0000' }, 'control characters'],
    ['description', { title: 'T', creator: 'C', description: null }, 'must be a string'],
    ['description', { title: 'T', creator: 'C', description: 'd'.repeat(2001) }, 'at most 2000'],
    ['description', { title: 'T', creator: 'C', description: 'bell\u0007' }, 'control characters'],
    ['digitalSourceType', { title: 'T', creator: 'C', digitalSourceType: 'digitalCapture' }, 'IPTC digital source type URL'],
    ['digitalSourceType', { title: 'T', creator: 'C', digitalSourceType: 'https://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' }, 'IPTC'],
    ['digitalSourceType', { title: 'T', creator: 'C', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/madeUp' }, 'IPTC'],
    ['dateCreated', { title: 'T', creator: 'C', dateCreated: '2023-02-29' }, 'ISO 8601'],
    ['dateCreated', { title: 'T', creator: 'C', dateCreated: 'yesterday' }, 'ISO 8601'],
    ['dateCreated', { title: 'T', creator: 'C', dateCreated: '2024-01-01T10:00:00' }, 'ISO 8601'], // no zone
    ['extra', { title: 'T', creator: 'C', extra: 'x' }, 'not a supported field'],
  ];
  for (const [field, raw, message] of bad) {
    it(`rejects ${JSON.stringify(raw)?.slice(0, 60)} naming ${field}`, function () {
      const err = inputError(() => parseManifestInput(raw));
      expect(err.field).to.equal(field);
      expect(err.message).to.contain(message);
    });
  }

  it('accepts a date-time with a zone and counts characters, not UTF-16 units', function () {
    expect(parseManifestInput({ title: 'T', creator: 'C', dateCreated: '2024-01-01T10:00:00.5+02:00' }).dateCreated).to.equal(
      '2024-01-01T10:00:00.5+02:00',
    );
    expect(parseManifestInput({ title: '📷'.repeat(256), creator: 'C' }).title).to.have.length(512);
  });

  it('validates typed callers too (buildManifestDefinition does not trust its input)', function () {
    const err = inputError(() => buildManifestDefinition({ title: '', creator: 'C' }, { sourceHasManifest: false }));
    expect(err.field).to.equal('title');
  });

  describe('publisher, copyright, AI training and data mining, thumbnail', function () {
    const full = {
      title: 'T',
      creator: 'Jane Doe',
      publisher: { name: 'Daily Planet', url: 'https://planet.example/' },
      copyrightHolder: { name: 'Jane Doe', type: 'Person' as const },
      copyrightNotice: '© 2025 Jane Doe\nAll rights reserved',
      trainingMining: {
        'cawg.ai_generative_training': { use: 'notAllowed' as const },
        'cawg.data_mining': { use: 'constrained' as const, constraint_info: 'ask licensing@planet.example' },
      },
      thumbnail: true,
    };

    it('writes publisher and copyright into cawg.metadata (gathered), the choices as cawg.training-mining, and names the thumbnail resource', function () {
      const def = buildManifestDefinition(full, { sourceHasManifest: false, medium: { duration: 'PT1M2.5S' } });
      expect(def.assertions.map((a) => a.label)).to.deep.equal(['c2pa.actions.v2', 'cawg.metadata', 'cawg.training-mining']);
      expect(def.assertions.map((a) => a.created ?? false)).to.deep.equal([true, false, false]);
      expect(TRAINING_MINING_LABEL).to.equal('cawg.training-mining');
      expect(def.assertions[1]!.data).to.deep.equal({
        '@context': METADATA_CONTEXT,
        'dc:creator': ['Jane Doe'],
        'dc:publisher': ['Daily Planet'],
        'plus:CopyrightOwner': [{ 'plus:CopyrightOwnerName': 'Jane Doe' }],
        'dc:rights': '© 2025 Jane Doe\nAll rights reserved',
        'xmpRights:Marked': true,
        'xmpDM:duration': { 'xmpDM:value': '62.5', 'xmpDM:scale': '1/1' },
      });
      expect(def.assertions[2]!.data).to.deep.equal({ entries: full.trainingMining });
      expect(def.thumbnail).to.deep.equal({ format: 'image/jpeg', identifier: CLAIM_THUMBNAIL_ID });
    });

    it('leaves out what is not given, and the thumbnail when false', function () {
      const def = buildManifestDefinition({ title: 'T', creator: 'C', thumbnail: false }, { sourceHasManifest: false });
      expect(def).not.to.have.property('thumbnail');
      expect(def.assertions).to.have.length(2);
      expect(def.assertions[1]!.data).to.have.all.keys('@context', 'dc:creator');
    });

    it('a request may leave creator to a template; its fields replace the template’s whole values', function () {
      const request = parseManifestRequest({ title: ' Harbour ', publisher: { name: 'Override Press' }, thumbnail: false });
      expect(request).to.deep.equal({ title: 'Harbour', publisher: { name: 'Override Press' }, thumbnail: false });
      const defaults = parseManifestDefaults({ creator: 'Template Author', publisher: { name: 'Daily Planet', url: 'https://planet.example/' }, thumbnail: true, copyrightNotice: '© Planet' });
      expect(mergeManifest(request, defaults)).to.deep.equal({
        title: 'Harbour',
        creator: 'Template Author',
        publisher: { name: 'Override Press' },
        thumbnail: false,
        copyrightNotice: '© Planet',
      });
      const own = mergeManifest(parseManifestRequest({ title: 'T', creator: 'Request Author' }), defaults);
      expect(own.creator).to.equal('Request Author');
    });

    it('creator is still required when neither the request nor the template gives one', function () {
      expect(inputError(() => mergeManifest(parseManifestRequest({ title: 'T' }))).message).to.equal('manifest.creator: is required');
      const err = inputError(() => mergeManifest(parseManifestRequest({ title: 'T' }), parseManifestDefaults({ copyrightNotice: 'x' })));
      expect(err.field).to.equal('creator');
      expect(err.message).to.contain('template gives no creator');
    });

    it('templates take every manifest field but title and dateCreated, with the same rules', function () {
      expect(TEMPLATE_FIELDS).to.have.members(['creator', 'description', 'digitalSourceType', 'publisher', 'copyrightHolder', 'copyrightNotice', 'trainingMining', 'thumbnail']);
      expect(parseManifestDefaults({})).to.deep.equal({});
      for (const field of ['title', 'dateCreated']) {
        const err = inputError(() => parseManifestDefaults({ [field]: 'x' }));
        expect(err.field).to.equal(field);
        expect(err.message).to.contain('per sign request');
      }
      // The same rule as in a sign request, with the same words.
      const fromTemplate = inputError(() => parseManifestDefaults({ digitalSourceType: 'digitalCapture' }));
      const fromRequest = inputError(() => parseManifestInput({ title: 'T', creator: 'C', digitalSourceType: 'digitalCapture' }));
      expect(fromTemplate.message).to.equal(fromRequest.message);
      expect(inputError(() => parseManifestDefaults([])).field).to.equal('(root)');
    });

    const badNew: [string, Record<string, unknown>, string][] = [
      ['publisher', { publisher: 'Daily Planet' }, 'must be an object'],
      ['publisher.name', { publisher: {} }, 'is required'],
      ['publisher.name', { publisher: { name: ' ' } }, 'must not be empty'],
      ['publisher.url', { publisher: { name: 'P', url: 'ftp://planet.example/' } }, 'http or https'],
      ['publisher.url', { publisher: { name: 'P', url: 'not a url' } }, 'http or https'],
      ['publisher.url', { publisher: { name: 'P', url: 'https://user:pw@planet.example/' } }, 'without credentials'],
      ['publisher.type', { publisher: { name: 'P', type: 'Company' } }, 'one of Organization, Person'],
      ['publisher.logo', { publisher: { name: 'P', logo: 'x' } }, 'not a supported field'],
      ['copyrightHolder.name', { copyrightHolder: { name: 'x'.repeat(257) } }, 'at most 256'],
      ['copyrightNotice', { copyrightNotice: 7 }, 'must be a string'],
      ['copyrightNotice', { copyrightNotice: 'c'.repeat(1001) }, 'at most 1000'],
      ['trainingMining', { trainingMining: {} }, 'at least one of'],
      ['trainingMining', { trainingMining: 'notAllowed' }, 'at least one of'],
      ['trainingMining.c2pa.ai_training', { trainingMining: { 'c2pa.ai_training': { use: 'notAllowed' } } }, 'not a supported use'],
      ['trainingMining.cawg.ai_training', { trainingMining: { 'cawg.ai_training': 'notAllowed' } }, 'must be an object'],
      ['trainingMining.cawg.ai_training.use', { trainingMining: { 'cawg.ai_training': { use: 'no' } } }, 'allowed, notAllowed, constrained'],
      ['trainingMining.cawg.ai_training.constraint_info', { trainingMining: { 'cawg.ai_training': { use: 'allowed', constraint_info: 'x' } } }, 'only applies when use is constrained'],
      ['trainingMining.cawg.ai_training.constraints_info', { trainingMining: { 'cawg.ai_training': { use: 'constrained', constraints_info: 'x' } } }, 'not a supported field'],
      ['thumbnail', { thumbnail: 'yes' }, 'true or false'],
    ];
    for (const [field, extra, message] of badNew) {
      it(`rejects ${JSON.stringify(extra).slice(0, 70)} naming ${field}, in requests and templates alike`, function () {
        const inRequest = inputError(() => parseManifestInput({ title: 'T', creator: 'C', ...extra }));
        expect(inRequest.field).to.equal(field);
        expect(inRequest.message).to.contain(`manifest.${field}: `).and.contain(message);
        expect(inputError(() => parseManifestDefaults(extra)).message).to.equal(inRequest.message);
      });
    }
  });
});
