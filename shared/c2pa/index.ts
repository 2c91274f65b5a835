/** C2PA signing and reading through c2pa-rs (WASM). See each module for the details. */
export { C2paError } from './errors.js';
export { activeManifestLabel } from './manifest-store-label.js';
export {
  buildCoseSign1,
  coseSigner,
  CoseSizeError,
  reserveSizeFor,
  timestampImprintInput,
  COSE_OVERHEAD_BYTES,
  TIMESTAMP_BUDGET_BYTES,
  type C2paSignerDefinition,
  type Timestamper,
} from './cose-sign1.js';
export {
  buildManifestDefinition,
  mergeManifest,
  opensParentIngredient,
  parseManifestDefaults,
  parseManifestInput,
  parseManifestRequest,
  ManifestInputError,
  CLAIM_THUMBNAIL_ID,
  DEFAULT_DIGITAL_SOURCE_TYPE,
  IPTC_DIGITAL_SOURCE_TYPES,
  MANIFEST_LIMITS,
  PARENT_INGREDIENT_ID,
  SERVICE_NAME,
  SERVICE_VERSION,
  TEMPLATE_FIELDS,
  TRAINING_MINING_CHOICES,
  TRAINING_MINING_LABEL,
  TRAINING_MINING_USES,
  type ManifestContext,
  type ManifestDefaults,
  type ManifestDefinition,
  type ManifestInput,
  type ManifestRequest,
  type Party,
  type TrainingMining,
  type TrainingMiningEntry,
} from './manifest-definition.js';
export {
  assertSignableMedia,
  isSignableMimeType,
  sniffMediaType,
  MediaTypeMismatchError,
  UnsupportedMediaTypeError,
  SIGNABLE_MIME_TYPES,
  type SignableMimeType,
} from './media-type.js';
export {
  hasManifest,
  readAsset,
  readManifestStore,
  MANIFEST_STORE_TYPE,
  type IngredientSummary,
  type ManifestSummary,
  type ReadOptions,
  type SignerInfo,
  type TimestampInfo,
  type ValidationState,
  type VerificationReport,
} from './read-asset.js';
export { signAsset, signAssetWithManifest, SourceManifestConflictError, type SignAssetInput, type SignedAsset } from './sign-asset.js';
export { makeClaimThumbnail, ThumbnailError, THUMBNAIL_LONG_EDGE } from './thumbnail.js';
export { checkTimeStampToken, TimeStampTokenError, type TimeStampTokenInfo } from './timestamp-token.js';
export { BytesBlob, c2paWasm } from './wasm.js';
