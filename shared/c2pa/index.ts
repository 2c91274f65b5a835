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
} from './cose-sign1.js';
export {
  buildManifestDefinition,
  opensParentIngredient,
  CLAIM_THUMBNAIL_ID,
  PARENT_INGREDIENT_ID,
  SERVICE_NAME,
  SERVICE_VERSION,
  TRAINING_MINING_LABEL,
  type ManifestContext,
  type ManifestDefinition,
} from './manifest-definition.js';
export { mergeManifest, parseManifestDefaults, parseManifestInput, parseManifestRequest, ManifestInputError, TEMPLATE_FIELDS } from './parse-manifest.js';
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
export { BytesBlob, c2paWasm } from './wasm.js';
