import { API_KEY_PREFIX } from '../shared/api-keys.js';
import { PARTY_TYPES, TRAINING_MINING_CHOICES, TRAINING_MINING_USES } from '../shared/domain/manifest-input.js';
import { ROLES } from '../shared/roles.js';

const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** The manifest fields a template may give (ManifestDefaults), also the sign request's besides title and dateCreated. */
const manifestDefaultProperties = {
  creator: { type: 'string', maxLength: 256, description: 'the author, written as a schema.org Person in a CreativeWork assertion' },
  description: { type: 'string', maxLength: 2000, description: 'caption or description (CreativeWork description)' },
  digitalSourceType: {
    type: 'string',
    description: 'IPTC digital source type URL for the c2pa.created action; default http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture. Ignored when the upload already carries a manifest (then c2pa.opened with it as parent ingredient).',
  },
  publisher: { allOf: [{ $ref: '#/components/schemas/Party' }], description: 'CreativeWork publisher' },
  copyrightHolder: { allOf: [{ $ref: '#/components/schemas/Party' }], description: 'CreativeWork copyrightHolder' },
  copyrightNotice: { type: 'string', maxLength: 1000, description: 'CreativeWork copyrightNotice, e.g. "© 2025 Daily Planet"' },
  trainingMining: { $ref: '#/components/schemas/TrainingMining' },
  thumbnail: {
    type: 'boolean',
    description: 'embed a claim thumbnail (c2pa.thumbnail.claim): a JPEG at most 512 px on its long side made by the service, of an image or of a frame of a video (taken by ffmpeg where the worker has it). Costs CPU per file (about 25 ms for a 12 MP JPEG, 0.2-0.5 s for a 1080p video); images over 40 megapixels, audio, and video without ffmpeg are signed without one.',
  },
};

/** Schemas, security schemes and shared error responses referenced by the route annotations. */
export const openApiComponents = {
  securitySchemes: {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /auth/login, /auth/register or /auth/refresh' },
    apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: `Organisation API key (${API_KEY_PREFIX}...); acts as signer on /v1 routes` },
  },
  schemas: {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', example: 'validation_error' },
            message: { type: 'string', example: 'email is required' },
          },
        },
      },
    },
    Role: { type: 'string', enum: [...ROLES] },
    RegisterInput: {
      type: 'object',
      required: ['email', 'password', 'org_name'],
      properties: {
        email: { type: 'string', format: 'email' },
        password: { type: 'string', minLength: 10, description: 'at least 10 characters, at most 72 bytes' },
        org_name: { type: 'string', maxLength: 200 },
      },
    },
    LoginInput: {
      type: 'object',
      required: ['email', 'password'],
      properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' } },
    },
    TokenPair: {
      type: 'object',
      required: ['access_token', 'refresh_token', 'token_type'],
      properties: {
        access_token: { type: 'string', description: 'JWT, HS256, expires after 15 minutes' },
        refresh_token: { type: 'string', description: 'JWT, expires after 30 days, single use' },
        token_type: { type: 'string', enum: ['bearer'] },
        expires_in: { type: 'integer', description: 'access token lifetime in seconds', example: 900 },
      },
    },
    Me: {
      type: 'object',
      properties: {
        user_id: { type: 'string', format: 'uuid' },
        email: { type: 'string' },
        org_id: { type: 'string', format: 'uuid' },
        role: { $ref: '#/components/schemas/Role' },
      },
    },
    OrgUser: {
      type: 'object',
      properties: {
        user_id: { type: 'string', format: 'uuid' },
        email: { type: 'string' },
        org_id: { type: 'string', format: 'uuid' },
        role: { $ref: '#/components/schemas/Role' },
        created_at: { type: 'string', format: 'date-time' },
      },
    },
    NewOrgUser: {
      type: 'object',
      required: ['email', 'password', 'role'],
      properties: { email: { type: 'string', format: 'email' }, password: { type: 'string' }, role: { $ref: '#/components/schemas/Role' } },
    },
    ApiKey: {
      type: 'object',
      properties: {
        key_id: { type: 'string', format: 'uuid' },
        name: { type: 'string' },
        prefix: { type: 'string', example: `${API_KEY_PREFIX}AbC123` },
        created_at: { type: 'string', format: 'date-time' },
        last_used_at: { type: 'string', format: 'date-time', nullable: true },
        revoked_at: { type: 'string', format: 'date-time', nullable: true },
      },
    },
    NewApiKey: {
      allOf: [
        { $ref: '#/components/schemas/ApiKey' },
        { type: 'object', properties: { key: { type: 'string', description: 'the raw key, shown only once' } } },
      ],
    },
    Upload: {
      type: 'object',
      properties: {
        upload_id: { type: 'string', format: 'uuid' },
        sha256: { type: 'string' },
        size: { type: 'integer' },
        mime_type: { type: 'string', enum: ['image/jpeg', 'image/png'] },
        filename: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
      },
    },
    Party: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      description: 'a schema.org Organization (default) or Person',
      properties: {
        name: { type: 'string', maxLength: 256 },
        url: { type: 'string', format: 'uri', maxLength: 2048, description: 'http or https' },
        type: { type: 'string', enum: [...PARTY_TYPES], default: 'Organization' },
      },
    },
    TrainingMiningEntry: {
      type: 'object',
      required: ['use'],
      additionalProperties: false,
      properties: {
        use: { type: 'string', enum: [...TRAINING_MINING_CHOICES] },
        constraint_info: { type: 'string', maxLength: 1000, description: 'only with use constrained: the conditions (a licence, a policy URL, free text)' },
      },
    },
    TrainingMining: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      description:
        'AI training and data mining choices, written as the entries of the CAWG training and data mining assertion (cawg.training-mining). A use left out is not stated; consumers treat constrained as notAllowed unless they obtain permission.',
      properties: Object.fromEntries(TRAINING_MINING_USES.map((u) => [u, { $ref: '#/components/schemas/TrainingMiningEntry' }])),
    },
    ManifestDefaults: {
      type: 'object',
      additionalProperties: false,
      description: "A manifest template's defaults: the sign request's manifest fields, with the same rules, except title and dateCreated (given per request). All optional.",
      properties: manifestDefaultProperties,
    },
    ManifestInput: {
      type: 'object',
      required: ['title'],
      additionalProperties: false,
      description: "The manifest of a sign request: title is required, and creator unless the template (template_id) gives one. A field given here replaces the template's whole value.",
      properties: {
        title: { type: 'string', maxLength: 256, description: "the work's title (dc:title of the manifest)" },
        ...manifestDefaultProperties,
        dateCreated: { type: 'string', description: 'ISO 8601 date (YYYY-MM-DD) or date-time with a zone (CreativeWork dateCreated)' },
      },
    },
    SignInput: {
      type: 'object',
      required: ['upload_id', 'manifest'],
      properties: {
        upload_id: { type: 'string', format: 'uuid' },
        template_id: { type: 'string', format: 'uuid', nullable: true, description: "one of the organisation's manifest templates: its defaults apply under the manifest's fields" },
        manifest: { $ref: '#/components/schemas/ManifestInput' },
        discoverable: { type: 'boolean', nullable: true, description: 'whether the signed file (over the template choice) is discoverable in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); null or absent follows the organisation (GET/PATCH /org)' },
        soft_binding: { type: 'boolean', nullable: true, description: 'whether an image is signed with a soft binding (over the template choice): its ISCC fingerprint as a c2pa.soft-binding assertion and in the index that finds copies by content; false skips the fingerprint. null or absent follows the organisation (GET/PATCH /org)' },
      },
    },
    ManifestTemplateInput: {
      type: 'object',
      required: ['name', 'manifest'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100, description: "unique among the organisation's templates" },
        manifest: { $ref: '#/components/schemas/ManifestDefaults' },
        discoverable: { type: 'boolean', nullable: true, description: 'whether files signed with it are discoverable in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); null or absent follows the organisation (GET/PATCH /org)' },
        soft_binding: { type: 'boolean', nullable: true, description: 'whether images signed with it get a soft binding (ISCC fingerprint assertion and index row); null or absent follows the organisation (GET/PATCH /org)' },
      },
    },
    ManifestTemplate: {
      type: 'object',
      properties: {
        template_id: { type: 'string', format: 'uuid' },
        name: { type: 'string' },
        version: { type: 'integer', minimum: 1, description: 'starts at 1; every update adds one' },
        manifest: { $ref: '#/components/schemas/ManifestDefaults' },
        discoverable: { type: 'boolean', nullable: true },
        soft_binding: { type: 'boolean', nullable: true },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
      },
    },
    ManifestTemplateVersion: {
      type: 'object',
      properties: {
        template_id: { type: 'string', format: 'uuid' },
        version: { type: 'integer', minimum: 1 },
        name: { type: 'string', description: 'the name the template had at this version' },
        manifest: { $ref: '#/components/schemas/ManifestDefaults' },
        created_at: { type: 'string', format: 'date-time', description: 'when this version was saved' },
        current_version: { type: 'integer' },
        deleted: { type: 'boolean' },
      },
    },
    Job: {
      type: 'object',
      properties: {
        job_id: { type: 'string', format: 'uuid' },
        status: {
          type: 'string',
          enum: ['queued', 'processing', 'signed', 'anchoring', 'anchored', 'failed'],
          description: 'queued -> processing -> signed (file ready) -> anchoring (batch sealed, transaction sent) -> anchored (confirmed); or failed',
        },
        upload_id: { type: 'string', format: 'uuid' },
        manifest: { allOf: [{ $ref: '#/components/schemas/ManifestInput' }], description: "the manifest the job applies: with a template, its defaults merged under the request's fields (kept as signed: later template edits do not change it)" },
        template: {
          type: 'object',
          nullable: true,
          description: 'the manifest template and version the job used (GET /v1/manifest-templates/{id}/versions/{version}); null without one',
          properties: { id: { type: 'string', format: 'uuid' }, version: { type: 'integer' } },
        },
        attempts: { type: 'integer' },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
        status_url: { type: 'string', format: 'uri' },
        error: { type: 'object', nullable: true, properties: { code: { type: 'string' }, message: { type: 'string' } } },
        signed_file: {
          type: 'object',
          nullable: true,
          properties: {
            file_id: { type: 'string', format: 'uuid' },
            sha256: { type: 'string' },
            size: { type: 'integer' },
            mime_type: { type: 'string' },
            certificate_serial: { type: 'string', description: 'serial (hex) of the signing certificate' },
            certificate_subject: { type: 'string', nullable: true, description: "subject of the signing certificate: the organisation's name (null for files signed before per-organisation certificates)" },
            download_url: { type: 'string', format: 'uri' },
          },
        },
        anchor: { allOf: [{ $ref: '#/components/schemas/Anchor' }], nullable: true, description: 'the signed file\'s on-chain anchor (null before the file exists)' },
      },
    },
    AnchorProof: {
      type: 'object',
      description: 'Self-contained proof that a file\'s SHA-256 is committed to by a transaction on chain (format mss-anchor-v1)',
      properties: {
        format: { type: 'string', enum: ['mss-anchor-v1'] },
        encoding: { type: 'string', description: 'the leaf, node and transaction encoding, in words' },
        file_sha256: { type: 'string', description: 'SHA-256 of the signed file (hex)' },
        leaf_index: { type: 'integer' },
        tree_size: { type: 'integer' },
        path: {
          type: 'array',
          description: 'siblings from the leaf up, at most ceil(log2(tree_size)); side left: h = sha256(0x01 || hash || h), right: h = sha256(0x01 || h || hash)',
          items: { type: 'object', properties: { side: { type: 'string', enum: ['left', 'right'] }, hash: { type: 'string' } } },
        },
        root: { type: 'string', description: 'Merkle root (hex); the leaf is sha256(0x00 || file_sha256)' },
        chain_id: { type: 'integer' },
        transaction_hash: { type: 'string' },
        block_number: { type: 'integer' },
        block_hash: { type: 'string' },
        block_time: { type: 'string', format: 'date-time' },
        from_address: { type: 'string', description: 'the service\'s anchoring account (sender and receiver of the transaction)' },
        calldata: { type: 'string', description: 'the transaction input: 0x6d73736101 || root' },
      },
    },
    Anchor: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['pending', 'anchoring', 'anchored'] },
        proof_url: { type: 'string', format: 'uri', description: 'public GET /v1/media/anchors/{sha256}' },
        root: { type: 'string', nullable: true },
        chain_id: { type: 'integer', nullable: true },
        transaction_hash: { type: 'string', nullable: true, description: 'last transaction sent for the batch; may be replaced until anchored' },
        proof: { allOf: [{ $ref: '#/components/schemas/AnchorProof' }], nullable: true },
      },
    },
    AnchorLookup: {
      allOf: [{ type: 'object', properties: { sha256: { type: 'string' } } }, { $ref: '#/components/schemas/Anchor' }],
    },
    AnchorVerification: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['not_anchored', 'pending', 'anchoring', 'anchored'] },
        proof_url: { type: 'string', nullable: true },
        proof: { allOf: [{ $ref: '#/components/schemas/AnchorProof' }], nullable: true },
        chain: {
          type: 'object',
          nullable: true,
          description: 'the proof checked against the chain itself: verified, failed (with reason) or unavailable (the chain could not be asked)',
          properties: {
            result: { type: 'string', enum: ['verified', 'failed', 'unavailable'] },
            reason: { type: 'string' },
            message: { type: 'string' },
            chain_id: { type: 'integer' },
            transaction_hash: { type: 'string' },
            block_number: { type: 'integer' },
            block_hash: { type: 'string' },
            block_time: { type: 'string', format: 'date-time' },
            confirmations: { type: 'integer' },
            from_address: { type: 'string' },
          },
        },
      },
    },
    RecoveredManifest: {
      type: 'object',
      description: 'A manifest recovered by fingerprint: it belongs to a similar signed image and is NOT bound to the bytes sent (bound_to_file false).',
      properties: {
        manifest_id: { type: 'string' },
        manifest_url: { type: 'string', format: 'uri' },
        thumbnail_url: { type: 'string', format: 'uri', description: 'a small JPEG of the signed image, for side-by-side comparison' },
        recovered_by: { type: 'string', enum: ['fingerprint'] },
        bound_to_file: { type: 'boolean', enum: [false] },
        note: { type: 'string' },
        distance: { type: 'integer', minimum: 0, maximum: 64, description: 'Hamming distance between the ISCC Image-Codes' },
        similarity_score: { type: 'integer', minimum: 0, maximum: 100 },
        alg: { type: 'string', enum: ['io.iscc.v0'] },
        fingerprint: { type: 'string', description: "the signed image's ISCC Image-Code" },
        manifest: { type: 'object', nullable: true },
        signer: { type: 'object', nullable: true },
        signature: { type: 'string', enum: ['trusted', 'valid', 'invalid'], description: 'the stored manifest signature on its own; the hard binding (data hash of the original) cannot be checked without the original and is left out' },
        status: { type: 'object', description: 'every code c2pa-rs gave the stored manifest, the hard-binding failure included' },
        revocation: { type: 'object' },
        signed_sha256: { type: 'string' },
        anchor: { type: 'object', nullable: true },
      },
    },
    PublicVerification: {
      allOf: [
        { $ref: '#/components/schemas/Verification' },
        {
          type: 'object',
          properties: {
            fingerprint: { type: 'string', nullable: true, description: "the file's ISCC Image-Code, computed when it has no manifest" },
            recovered: { type: 'array', items: { $ref: '#/components/schemas/RecoveredManifest' }, description: 'empty for a file with an embedded manifest' },
            recovered_note: { type: 'string', nullable: true },
            checked_at: { type: 'string', format: 'date-time' },
            permalink: { type: 'string', format: 'uri' },
          },
        },
      ],
    },
    Verification: {
      type: 'object',
      properties: {
        validation_state: { type: 'string', enum: ['Trusted', 'Valid', 'Invalid', 'none'], description: 'c2pa-rs verdict with the service root as the only trust anchor; none = no manifest' },
        active_manifest: { type: 'string', nullable: true },
        manifest: {
          type: 'object',
          nullable: true,
          properties: {
            title: { type: 'string', nullable: true },
            creator: { type: 'string', nullable: true },
            claim_generator: { type: 'string', nullable: true },
            signed_at: { type: 'string', nullable: true, description: 'signing time from the RFC 3161 timestamp, when present (same as timestamp.time)' },
            actions: { type: 'array', items: { type: 'string' } },
            ingredients: { type: 'array', items: { type: 'object' } },
            assertions: { type: 'array', items: { type: 'string' }, description: 'labels of the assertions c2pa-rs lists (not the hash and thumbnail assertions)' },
            publisher: { type: 'string', nullable: true, description: 'CreativeWork publisher name' },
            copyright_holder: { type: 'string', nullable: true, description: 'CreativeWork copyrightHolder name' },
            copyright_notice: { type: 'string', nullable: true },
            training_mining: {
              type: 'object',
              nullable: true,
              description: 'entries of the cawg.training-mining (or C2PA 1.x c2pa.training-mining) assertion, e.g. {"cawg.ai_training": {"use": "notAllowed"}}',
              additionalProperties: { $ref: '#/components/schemas/TrainingMiningEntry' },
            },
            thumbnail: { type: 'object', nullable: true, properties: { format: { type: 'string' } }, description: 'the claim thumbnail, when the manifest has one' },
          },
        },
        signer: { type: 'object', nullable: true, properties: { subject: { type: 'string' }, serial: { type: 'string' }, issuer: { type: 'string' } } },
        status: {
          type: 'object',
          properties: {
            success: { type: 'array', items: { type: 'string' } },
            informational: { type: 'array', items: { type: 'string' } },
            failure: { type: 'array', items: { type: 'string' } },
          },
        },
        timestamp: {
          type: 'object',
          nullable: true,
          description:
            'The RFC 3161 timestamp (sigTst2) of the signature; null without one. The signing time is `time`, taken from the ' +
            'timestamp. With a validated and trusted timestamp the signing certificate is judged at that time, so a file ' +
            'stays Trusted after its certificate expires.',
          properties: {
            time: { type: 'string', format: 'date-time', nullable: true, description: 'genTime of the timestamp token' },
            validated: { type: 'boolean', description: 'timeStamp.validated: the token stamps this signature and its TSA signature verifies' },
            trusted: { type: 'boolean', description: "timeStamp.trusted: the TSA certificate chains to the service's root" },
            codes: { type: 'array', items: { type: 'string' }, description: 'the timeStamp.* status codes c2pa-rs reported' },
          },
        },
        revocation: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['good', 'revoked', 'expired', 'not_issued_by_service', 'no_signer'] },
            revoked_at: { type: 'string', format: 'date-time' },
            reason: { type: 'string' },
          },
        },
        mime_type: { type: 'string' },
        sha256: { type: 'string' },
        anchor: { $ref: '#/components/schemas/AnchorVerification' },
      },
    },
    Health: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        database: { type: 'string', enum: ['ok', 'unreachable'] },
        redis: { type: 'string', enum: ['ok', 'unreachable'] },
      },
    },
    Readiness: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ready', 'not_ready'] },
        failing: { type: 'array', items: { type: 'string', enum: ['database', 'redis', 'storage', 'vault', 'signing_certificate'] } },
        checks: {
          type: 'object',
          description: "Each part: 'ok', 'not used' (Redis with the in-process queue), 'missing' (no valid signing certificate), 'not checked' (the vault, when there is no certificate to find its key) or what failed",
          properties: {
            database: { type: 'string' },
            redis: { type: 'string' },
            storage: { type: 'string' },
            vault: { type: 'string' },
            signing_certificate: { type: 'string' },
          },
        },
      },
    },
  },
  parameters: {
    Limit: { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    Cursor: { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'next_cursor of the previous page' },
  },
  responses: {
    TooLarge: error('The file exceeds the upload limit (413)'),
    UnsupportedType: error('Not an image, video or audio format the service reads, told by content (415)'),
    VerificationBusy: error('The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout)'),
    ImageTooLarge: error('The image declares more pixels than MAX_IMAGE_PIXELS (422, code image_too_large): refused from its header, before anything decodes it'),
    UnreadableCredentials: error('The file is sound but its C2PA data cannot be parsed (422, code unreadable_credentials), or an image declares more than MAX_IMAGE_PIXELS pixels (422, image_too_large); a damaged file (cut short, out of bounds) is a 400 corrupt_image or corrupt_media naming what is wrong'),
    ValidationError: error('Invalid input (400): the message names the field'),
    Unauthenticated: error('Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials'),
    Forbidden: error('The caller may not do this (403)'),
    NotFound: error('Not found, or belongs to another organisation (404)'),
    Conflict: error('Conflicts with the current state (409)'),
    RateLimited: {
      description: 'Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS in flight from this address (too_many_concurrent_requests); see the Retry-After header',
      headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  },
};
