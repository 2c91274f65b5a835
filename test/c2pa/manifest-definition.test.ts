import { expect } from 'chai';
import {
  buildManifestDefinition,
  DEFAULT_DIGITAL_SOURCE_TYPE,
  ManifestInputError,
  opensParentIngredient,
  parseManifestInput,
  PARENT_INGREDIENT_ID,
  SERVICE_NAME,
  SERVICE_VERSION,
} from '../../shared/c2pa/manifest-definition.js';

function inputError(fn: () => unknown): ManifestInputError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ManifestInputError);
    return err as ManifestInputError;
  }
  throw new Error('expected ManifestInputError');
}

describe('c2pa: manifest definition', function () {
  it('records c2pa.created with the default IPTC digitalCapture source type, the creator as author, the service as generator', function () {
    const def = buildManifestDefinition({ title: ' Sunrise ', creator: 'Ada Lovelace' }, { sourceHasManifest: false });
    expect(def.title).to.equal('Sunrise');
    expect(def.claim_generator_info).to.deep.equal([{ name: SERVICE_NAME, version: SERVICE_VERSION }]);
    expect(SERVICE_NAME).to.equal('media-signing-service');
    expect(SERVICE_VERSION).to.match(/^\d+\.\d+\.\d+/);
    expect(def.assertions).to.deep.equal([
      {
        label: 'c2pa.actions.v2',
        data: {
          actions: [
            {
              action: 'c2pa.created',
              softwareAgent: { name: SERVICE_NAME, version: SERVICE_VERSION },
              digitalSourceType: DEFAULT_DIGITAL_SOURCE_TYPE,
            },
          ],
        },
      },
      {
        label: 'stds.schema-org.CreativeWork',
        data: { '@context': 'https://schema.org', '@type': 'CreativeWork', author: [{ '@type': 'Person', name: 'Ada Lovelace' }] },
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
    expect(def.assertions[1]!.data).to.include({ description: 'line one\nline two', dateCreated: '2024-02-29' });
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
    });
    expect(opensParentIngredient(def)).to.equal(true);
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
});
