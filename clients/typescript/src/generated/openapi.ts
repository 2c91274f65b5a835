// Generated from the service's OpenAPI document by `npm run client:generate`: do not edit.

export interface paths {
    "/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a user together with a new organisation; the user becomes its admin
         * @description The organisation gets its own signing certificate (subject O and CN: its name), issued by the service's sub-CA.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["RegisterInput"];
                };
            };
            responses: {
                /** @description Token pair */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TokenPair"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description PASSWORD_CHECKS_MAX password checks are running or waiting in this API process (503, code auth_busy): see the Retry-After header */
                503: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with e-mail and password */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["LoginInput"];
                };
            };
            responses: {
                /** @description Token pair */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TokenPair"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description PASSWORD_CHECKS_MAX password checks are running or waiting in this API process (503, code auth_busy): see the Retry-After header */
                503: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange a refresh token for a new pair (single use; reuse signs the whole family out) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        refresh_token: string;
                    };
                };
            };
            responses: {
                /** @description New token pair */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TokenPair"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out this session (or every session of the user)
         * @description Revokes the refresh tokens of the session the access token belongs to; from then on that session's access tokens are refused (401) too, not only when they expire. `refresh_token` signs out that token's session as well (for access tokens issued before sessions were named); `all: true` signs out every session of the user. Answers 204.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        refresh_token?: string;
                        /** @default false */
                        all?: boolean;
                    };
                };
            };
            responses: {
                /** @description Signed out */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Identity */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Me"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the signed-in user's name
         * @description The name is the CN of identity certificates issued from now on; certificates already issued keep the name they were issued with.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["MePatch"];
                };
            };
            responses: {
                /** @description The user */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: uuid */
                            user_id: string;
                            email: string;
                            name: string | null;
                            /** Format: uuid */
                            org_id: string;
                            role: string;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/auth/me/identity-certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user's identity certificates */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Current certificate and history */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IdentityCertificateStatus"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Issue the signed-in user an X.509 identity certificate (CAWG identity, cawg.x509.cose)
         * @description Subject CN = the user's name, O = the organisation's name; the user's e-mail address in subjectAltName; EKU emailProtection; a vault key of the user's own; issued by the service's sub-CA (through the scheduler). A new certificate each time; earlier ones stay valid until they expire or are revoked. 409 name_required when the user has no name (PATCH /auth/me).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The new certificate */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IdentityCertificate"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The scheduler (which issues certificates) has not answered within the wait (503, code issuance_pending), the service has no issuing CA (no_issuing_ca) or the vault is unreachable (vault_unavailable) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me/identity-certificate/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user's identity certificate requests to the organisation's external CA, pending and past (newest first) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The requests */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            requests: components["schemas"]["ExternalCertificateRequest"][];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Ask for an identity certificate from the organisation's external CA: a new vault key of the user's own and a PKCS#10 request (CSR) for it
         * @description The same flow as the organisation's signing certificate (POST /org/signing-certificate/requests), for the signed-in user: the scheduler creates the key and the CSR, subject CN = the user's name, O = the organisation's name (C = PKI_COUNTRY when set), the user's e-mail address in subjectAltName, keyUsage digitalSignature (critical), EKU id-kp-emailProtection. Send csr_pem to the organisation's CA, then post the chain it issues to .../chain. A user's requests count against MAX_PENDING_CERTIFICATE_REQUESTS apart from the organisation's. 409 name_required when the user has no name (PATCH /auth/me).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The request with its CSR */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The user has no name (name_required), or MAX_PENDING_CERTIFICATE_REQUESTS requests open (too_many_pending_requests): hand in a chain for one, or withdraw one */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The scheduler has not made the key within 15 s (csr_pending: the request stands), or the key vault failed */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me/identity-certificate/requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of the signed-in user's identity certificate requests */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The request */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me/identity-certificate/requests/{request_id}/chain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hand over the chain the external CA issued for the request; once checked, the user signs as a person with it
         * @description Checked before use: the leaf holds the request's vault key, every certificate is within its validity, the leaf meets the CAWG X.509 identity profile (the C2PA claim-signer profile with EKU emailProtection) and names the user's e-mail address in subjectAltName, and the chain verifies up to a CAWG trust anchor: the organisation's trust anchors (/org/trust-anchors) or CAWG_TRUST_ANCHORS_FILE. From then on "identity" on POST /v1/media/sign signs with it, until a newer certificate (from either CA) replaces it. The service's own OCSP responder and CRLs never answer for it: revocation is the CA's.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ExternalCertificateChainInput"];
                };
            };
            responses: {
                /** @description The accepted request, with its certificate */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The request is not waiting for a chain (request_not_pending) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The chain is refused (422), the code naming the check: chain_invalid (not PEM certificates), chain_key_mismatch (the leaf does not hold this request's key), chain_expired (a certificate is outside its validity), chain_profile (the leaf does not meet the CAWG X.509 identity profile, or does not name the user's e-mail address), chain_untrusted (it does not verify up to the organisation's trust anchors or CAWG_TRUST_ANCHORS_FILE) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me/identity-certificate/requests/{request_id}/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Withdraw an identity certificate request waiting for its key or chain: it then takes no chain, and no longer counts against MAX_PENDING_CERTIFICATE_REQUESTS */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The withdrawn request */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The request is accepted or failed already (request_not_pending) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/me/identity-certificate/requests/{request_id}/revoked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record that the external CA revoked the identity certificate: the user stops signing as a person with it at once
         * @description Revocation is the CA's; this records it here. Sign requests with identity are then 409 identity_certificate_missing (the service does not fall back to an older certificate) until a new chain is accepted or the service CA issues one (POST /auth/me/identity-certificate).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ExternalCertificateRevocationInput"];
                };
            };
            responses: {
                /** @description The request, its certificate marked revoked */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No accepted certificate (not_accepted), or already recorded (already_revoked) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/users/{user_id}/identity-certificate/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a user's identity certificates (admin)
         * @description Every unrevoked identity certificate of the user is revoked by the scheduler: the OCSP responder answers revoked and leaf.crl lists it. Files signed before keep their organisation's signature; c2pa-rs judges the identity part at reading time (see the README). Deleting a user revokes them too (reason affiliationChanged), in the deletion's own transaction (see DELETE /org/users/{user_id}).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    user_id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /**
                         * @description RFC 5280 CRLReason written in the CRL and OCSP answers (default privilegeWithdrawn)
                         * @enum {string}
                         */
                        reason?: "unspecified" | "keyCompromise" | "cACompromise" | "affiliationChanged" | "superseded" | "cessationOfOperation" | "certificateHold" | "privilegeWithdrawn" | "aACompromise";
                    };
                };
            };
            responses: {
                /** @description The certificates, revoked */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            revoked: components["schemas"]["IdentityCertificate"][];
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The scheduler (which issues certificates) has not answered within the wait (503, code issuance_pending), the service has no issuing CA (no_issuing_ca) or the vault is unreachable (vault_unavailable) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the users of the caller's organisation (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Users */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            users: components["schemas"]["OrgUser"][];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Add a user with a role to the caller's organisation (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["NewOrgUser"];
                };
            };
            responses: {
                /** @description Created user */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrgUser"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description PASSWORD_CHECKS_MAX password checks are running or waiting in this API process (503, code auth_busy): see the Retry-After header */
                503: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a user (admin); the last admin cannot be removed
         * @description The user's identity certificates are revoked with them, in the same transaction (reason affiliationChanged): those the service CA issued are revoked in its records, so OCSP answers revoked at once, and leaf.crl lists them once the scheduler reissues it; those from the organisation's external CA are recorded revoked (the organisation still asks its CA to revoke them), and open requests to it are withdrawn. A sign job queued to sign as the user that has not run fails with identity_certificate_missing. API keys bound to the user go with them.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    user_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Removed */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a user's role (admin); the last admin cannot be demoted */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    user_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        role: components["schemas"]["Role"];
                    };
                };
            };
            responses: {
                /** @description Updated user */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrgUser"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/org/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the organisation's API keys, without secrets (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Keys */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            api_keys: components["schemas"]["ApiKey"][];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create an API key (admin). The raw key is in this response only. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        /**
                         * Format: uuid
                         * @description a user of the organisation the key signs as (CAWG identity: sign requests with `identity` use that user's identity certificate); without it the key has no person, and such requests are 422 no_identity
                         */
                        user_id?: string;
                    };
                };
            };
            responses: {
                /** @description The new key */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NewApiKey"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API key (admin); it stops working at once. Revoking a revoked key is a no-op. */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/trust-anchors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the organisation's own trust anchors, newest first (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Anchors */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            trust_anchors: components["schemas"]["OrganisationTrustAnchor"][];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Trust a CA for the organisation's own verifications (admin): a signer chaining to it reads Trusted, with trust_source organisation_anchor, in POST /v1/media/verify by the organisation's members only (never in the public verify, never for other organisations) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description one CA certificate, PEM (-----BEGIN CERTIFICATE-----) */
                        pem: string;
                        /**
                         * @description a name for it, e.g. the partner's
                         * @example Partner Agency CA
                         */
                        label?: string;
                    };
                };
            };
            responses: {
                /** @description The anchor, trusted from now on */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrganisationTrustAnchor"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The organisation already trusts this certificate (trust_anchor_exists), or has the most anchors it may have, 50 (too_many_trust_anchors) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not a CA certificate the service can trust: certificate_unreadable (no PEM certificate, or it does not parse), one_certificate_expected (more than one), not_a_ca_certificate (basicConstraints without cA), certificate_expired, certificate_not_yet_valid */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/trust-anchors/{anchor_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Stop trusting one of the organisation's anchors (admin); it stops applying at once */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    anchor_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the organisation's webhook endpoints, without secrets (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Endpoints */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            webhooks: components["schemas"]["Webhook"][];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a webhook endpoint (admin). The signing secret is in this answer only. */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @example https://example.com/hooks/mss
                         */
                        url: string;
                        events: components["schemas"]["WebhookEventType"][];
                        description?: string;
                    };
                };
            };
            responses: {
                /** @description The new endpoint and its secret */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookWithSecret"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The organisation already has MAX_WEBHOOK_ENDPOINTS endpoints (409, code webhook_limit_reached) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The URL is refused (422): url_not_allowed (not https, credentials in it, or a private, loopback or link-local address, also after DNS resolution) or url_not_resolvable (its host name resolves to no address) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One webhook endpoint, without its secret (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhook_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a webhook endpoint and its delivery log (admin); pending deliveries stop */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhook_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a webhook endpoint: URL, events, description, enabled (admin) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhook_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: uri
                         * @example https://example.com/hooks/mss
                         */
                        url?: string;
                        events?: components["schemas"]["WebhookEventType"][];
                        description?: string;
                        /** @description true re-enables a disabled endpoint (clears the reason); false disables it */
                        enabled?: boolean;
                    };
                };
            };
            responses: {
                /** @description The endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The URL is refused (422): url_not_allowed (not https, credentials in it, or a private, loopback or link-local address, also after DNS resolution) or url_not_resolvable (its host name resolves to no address) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/org/webhooks/{webhook_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new signing secret (admin), in this answer only; the old one still signs (a second signature) for WEBHOOK_SECRET_GRACE_HOURS */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhook_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The endpoint and its new secret */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookWithSecret"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The endpoint's delivery log, newest first, a page at a time: status, attempts with time, duration and response code (admin) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                };
                header?: never;
                path: {
                    webhook_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deliveries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            deliveries: components["schemas"]["WebhookDelivery"][];
                            /** @description pass as ?cursor= for the next (older) page; null on the last */
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send one event to this endpoint again, with the same event id and a fresh round of attempts (admin) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    webhook_id: string;
                    delivery_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Queued again */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookDelivery"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation's audit events, newest first, with their leaf index (admin) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                    action?: "account.registered" | "account.sign_in" | "account.sign_in_failed" | "account.sign_in_throttled" | "account.signed_out" | "account.refresh_token_reused" | "user.created" | "user.role_changed" | "user.deleted" | "api_key.created" | "api_key.revoked" | "template.created" | "template.changed" | "template.deleted" | "trust_anchor.created" | "trust_anchor.deleted" | "webhook.created" | "webhook.changed" | "webhook.deleted" | "webhook.secret_rotated" | "webhook.disabled" | "sign.requested" | "sign.signed" | "sign.failed" | "certificate.requested" | "certificate.issued" | "certificate.rotated" | "certificate.revoked" | "certificate.external_accepted" | "certificate.external_refused" | "crl.published" | "operator.command" | "audit.archived" | "service.started";
                    /** @description the actor's id (user or API key), address, role or command, or its type */
                    actor?: string;
                    since?: string;
                    until?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Events */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            events: components["schemas"]["AuditEvent"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/audit-events/{event_id}/proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The RFC 9162 inclusion proof of one of the organisation's events in the tree of tree_size leaves (admin); hashes only */
        get: {
            parameters: {
                query?: {
                    /** @description default: the latest checkpoint */
                    tree_size?: number;
                };
                header?: never;
                path: {
                    event_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The proof */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            leaf_index: number;
                            tree_size: number;
                            audit_path: string[];
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log's latest signed checkpoint (public) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The checkpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuditCheckpoint"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The RFC 9162 consistency proof between the trees of first and second leaves (public)
         * @description 404 with code `archived` when the proof needs hashes of events archived by the operator (`npm run audit -- export --before`): ask from the archived size or later.
         */
        get: {
            parameters: {
                query: {
                    first: number;
                    second: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The proof */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            first: number;
                            second: number;
                            proof: string[];
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's organisation */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The organisation */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organisation"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change the organisation's settings: its name (the signing certificate is reissued with it), whether its signed files are discoverable and whether its images get a soft binding
         * @description name: signatures name the organisation, so a rename issues a new signing certificate (and key) at once with the new name in its subject; files signed before keep the old name, which was right when they were signed (the old certificate is not revoked). If the new certificate cannot be issued (vault or CA unavailable), nothing changes and the answer is 503. discoverable (default true): whether the organisation's signed files can be found in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); files whose sign request or template chose for themselves keep that choice, all others follow the setting at once. soft_binding (default true): whether images signed from now on get an ISCC fingerprint, as a c2pa.soft-binding assertion in their manifest and a row in the soft-binding index (so a copy stripped of its manifest can be matched back by content); off, signing skips the fingerprint (cheaper, see the README) and such files can only be found by their embedded manifest. Sign requests and templates may choose for themselves. Files signed before keep what they were signed with.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        discoverable?: boolean;
                        soft_binding?: boolean;
                    };
                };
            };
            responses: {
                /** @description The organisation, changed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Organisation"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The new signing certificate could not be issued; the name is unchanged */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/media/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload an image, video or audio file, or a fragmented MP4 rendition, to sign (recognised by content, not by name)
         * @description A single file is the part "file". A fragmented MP4 rendition (a DASH or HLS/CMAF representation) is one part "init" (its init segment: a moov with an mvex), one or more parts "fragment" (its media segments, .m4s, in order, each one moof followed by one mdat) and optionally parts "playlist" (.mpd, .m3u8, at most 16, returned unchanged with the signed rendition; one addressing byte ranges inside the segments is 422 playlist_invalid), at most MAX_RENDITION_FRAGMENTS fragments, all of it within the kind's size limit; each part keeps its file name, which must differ (400 duplicate_part_name). A rendition that cannot be signed is 422 with its reason: init_segment_invalid (no mvex, media fragments in it), fragment_invalid (not one moof followed by one mdat), fragment_mismatch (a track the init segment does not have: from another init segment), fragments_out_of_order (their sequence numbers do not increase), rendition_already_signed. Accepted formats (the format registry, shared/media/formats.ts): JPEG, PNG, WebP, GIF, TIFF, DNG, AVIF, HEIC, HEIF, JPEG XL, SVG images; MP4, M4V, QuickTime, AVI video; M4A, MP3, WAV, FLAC audio; PDF, EPUB, Word, Excel, PowerPoint, OpenDocument documents. The content decides the format (magic numbers and a walk over the file's structure), never the name or the declared type: other content is 415, an empty, damaged or truncated file 400. An image declaring more than MAX_IMAGE_PIXELS pixels (width x height from its header; an SVG's declared size) is 422 image_too_large; a JPEG, PNG, WebP, GIF, TIFF or AVIF image whose pixel data is missing or cut short is 400 corrupt_image (it is decoded in the uploads' own pool, UPLOAD_CHECK_POOL_SIZE processes that never wait behind verifications: 503 verification_busy when that is full). Size limits by kind: MAX_UPLOAD_BYTES for images, MAX_UPLOAD_BYTES_VIDEO and MAX_UPLOAD_BYTES_AUDIO.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "multipart/form-data": {
                        /**
                         * Format: binary
                         * @description the file to sign (not with a rendition's parts)
                         */
                        file?: string;
                        /**
                         * Format: binary
                         * @description a fragmented MP4 rendition's init segment (with its "fragment" parts): the rendition to sign
                         */
                        init?: string;
                        /** @description the rendition's media segments (.m4s), one part each, in order */
                        fragment?: string[];
                        /** @description the rendition's playlists (.mpd, .m3u8), returned unchanged with the signed rendition */
                        playlist?: string[];
                    };
                };
            };
            responses: {
                /** @description Stored */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Upload"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file exceeds the upload limit (413) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not an image, video or audio format the service reads, told by content (415) */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The image declares more pixels than MAX_IMAGE_PIXELS (422, code image_too_large): refused from its header, before anything decodes it; or an ISO BMFF file (MP4, MOV, M4A, AVIF, HEIC, HEIF) has more than 10,000 boxes or nests them more than 32 deep (422, media_too_complex) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation's uploads, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of uploads */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            uploads: components["schemas"]["Upload"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/resumable-uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a resumable upload (tus creation) for a file of any size up to the largest per-kind limit
         * @description tus 1.0 (https://tus.io/protocols/resumable-upload): the bodies, statuses and headers are the protocol's; errors come as the service's JSON error shape. The session belongs to the caller's organisation. Upload-Length over the largest of MAX_UPLOAD_BYTES, MAX_UPLOAD_BYTES_VIDEO and MAX_UPLOAD_BYTES_AUDIO is 413 naming that limit (the kind is known only from the content: once the last byte is in, the limit of the kind the file turns out to be applies, as for POST /v1/media/upload). The answer's Location is the session's URL (relative). A body may come with the request (creation-with-upload, Content-Type: application/offset+octet-stream).
         */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the protocol version */
                    "Tus-Resumable": "1.0.0";
                    /** @description the whole file's size in bytes (Upload-Defer-Length is not accepted) */
                    "Upload-Length": string;
                    /** @description comma-separated `key base64(value)` pairs; `filename` names the upload (as the multipart upload's file name does); others are ignored */
                    "Upload-Metadata"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Created: Location names the session. When the body carried the whole file, the session is completed and the body is the Upload, as for POST /v1/media/upload */
                201: {
                    headers: {
                        /** @description the session's URL, relative */
                        Location?: string;
                        /** @description when the session expires unless bytes arrive (RFC 7231 date) */
                        "Upload-Expires"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Upload"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Tus-Resumable is missing or not 1.0.0 (412, code tus_version_unsupported) */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file exceeds the upload limit (413) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        /**
         * tus discovery: the protocol version, extensions and largest size (no credentials needed)
         * @description tus 1.0 (https://tus.io/protocols/resumable-upload): the bodies, statuses and headers are the protocol's; errors come as the service's JSON error shape.
         */
        options: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Tus-Version, Tus-Extension (creation, creation-with-upload, termination...) and Tus-Max-Size */
                204: {
                    headers: {
                        /** @description 1.0.0 */
                        "Tus-Version"?: string;
                        /** @description supported extensions */
                        "Tus-Extension"?: string;
                        /** @description the largest Upload-Length accepted */
                        "Tus-Max-Size"?: string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/resumable-uploads/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A resumable upload's state, and the upload it became once completed
         * @description Not part of tus: for clients that lost the answer to their last PATCH (they find the upload here) and for progress views.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    session_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The session */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["UploadSession"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such session in the organisation (another organisation's is not found), or it expired: code upload_expired until the sweep removes it, not_found after (404; tus allows 404 or 410, the service answers 404 for both) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /**
         * Abandon a resumable upload (tus termination): the session and its bytes are removed
         * @description tus 1.0 (https://tus.io/protocols/resumable-upload): the bodies, statuses and headers are the protocol's; errors come as the service's JSON error shape.
         */
        delete: {
            parameters: {
                query?: never;
                header: {
                    "Tus-Resumable": "1.0.0";
                };
                path: {
                    session_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Removed */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such session in the organisation (another organisation's is not found), or it expired: code upload_expired until the sweep removes it, not_found after (404; tus allows 404 or 410, the service answers 404 for both) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The session is completed or completing (409, upload_complete): its upload stays */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        /**
         * The bytes received so far (tus): Upload-Offset, where to resume
         * @description tus 1.0 (https://tus.io/protocols/resumable-upload): the bodies, statuses and headers are the protocol's; errors come as the service's JSON error shape. A completed session answers Upload-Offset equal to Upload-Length (ask GET for the upload it became).
         */
        head: {
            parameters: {
                query?: never;
                header: {
                    "Tus-Resumable": "1.0.0";
                };
                path: {
                    session_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Upload-Offset and Upload-Length (and Upload-Metadata as sent); Cache-Control: no-store */
                200: {
                    headers: {
                        /** @description bytes received */
                        "Upload-Offset"?: string;
                        /** @description the declared size */
                        "Upload-Length"?: string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such session in the organisation (another organisation's is not found), or it expired: code upload_expired until the sweep removes it, not_found after (404; tus allows 404 or 410, the service answers 404 for both) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /**
         * Send bytes from Upload-Offset on (tus); the last byte makes the session an upload
         * @description tus 1.0 (https://tus.io/protocols/resumable-upload): the bodies, statuses and headers are the protocol's; errors come as the service's JSON error shape. Upload-Offset must be the bytes received so far: anything else is 409 upload_offset_conflict and nothing is written (a request cut off keeps what arrived: HEAD says where to go on). When the last byte is in, the file goes through the checks of POST /v1/media/upload; the answer is 200 with the Upload (tus itself answers 204; tus clients take any 2xx). A file those checks refuse is answered as that endpoint answers it (415, 413 with the kind's limit, 400, 422), and the session and its bytes are removed: nothing is recorded. When a service the checks need is unavailable (503), the bytes are kept: a PATCH at the final offset with an empty body tries again. Another request writing the same session at that moment: 423 upload_locked (retry).
         */
        patch: {
            parameters: {
                query?: never;
                header: {
                    "Tus-Resumable": "1.0.0";
                    /** @description the bytes received so far, as HEAD reports them */
                    "Upload-Offset": string;
                    "Content-Type": "application/offset+octet-stream";
                };
                path: {
                    session_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/offset+octet-stream": string;
                };
            };
            responses: {
                /** @description The last byte is in: the upload the session became */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Upload"];
                    };
                };
                /** @description Bytes stored; Upload-Offset is the new offset, Upload-Expires the session's new expiry */
                204: {
                    headers: {
                        /** @description bytes received */
                        "Upload-Offset"?: string;
                        /** @description RFC 7231 date */
                        "Upload-Expires"?: string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such session in the organisation (another organisation's is not found), or it expired: code upload_expired until the sweep removes it, not_found after (404; tus allows 404 or 410, the service answers 404 for both) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file exceeds the upload limit (413) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not an image, video or audio format the service reads, told by content (415) */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The image declares more pixels than MAX_IMAGE_PIXELS (422, code image_too_large): refused from its header, before anything decodes it; or an ISO BMFF file (MP4, MOV, M4A, AVIF, HEIC, HEIF) has more than 10,000 boxes or nests them more than 32 deep (422, media_too_complex) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another request holds the session (423, upload_locked): retry */
                423: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/media/sign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue an upload for C2PA signing; answers 202 at once with the job
         * @description The organisation signs with its own certificate and vault key. Repeating a request with the same Idempotency-Key (same upload_id, template_id and manifest) returns the same job. With template_id, the organisation's manifest template gives the defaults and the request's manifest fields replace the template's (title is always required; creator only when the template gives none); the job records the template version and the merged manifest it applies.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    /** @description repeating a request with the same key (and the same body) returns the same job */
                    "Idempotency-Key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SignInput"];
                };
            };
            responses: {
                /** @description Queued (or the existing job for this Idempotency-Key) */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing was recorded: no_signing_certificate (no valid signing certificate; an operator must issue one) or queue_unavailable (retry later); both with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation's sign jobs, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                    status?: "queued" | "processing" | "signed" | "anchoring" | "anchored" | "failed";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of jobs */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            jobs: components["schemas"]["Job"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A sign job's status; with ?wait=N holds the request until the job leaves queued/processing or N seconds pass
         * @description ?wait= returns once the file is signed; it does not wait for anchoring (status signed -> anchoring -> anchored), which follows within about ANCHOR_BATCH_MAX_AGE_MS plus the confirmations. The anchor object carries the proof once anchored.
         */
        get: {
            parameters: {
                query?: {
                    wait?: number;
                };
                header?: never;
                path: {
                    job_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The job */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/files/{file_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download a signed file */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    file_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The signed file, in its own media type (Content-Type as stored). A signed fragmented MP4 rendition is an application/zip (streamed, its parts stored uncompressed, ZIP64 past 4 GiB) of its parts under their original names: the signed init segment (its manifest carries c2pa.hash.bmff.v3 with the Merkle tree), every signed segment (each with its merkle box) and the playlists unchanged */
                200: {
                    headers: {
                        /** @description When the signed file's manifest is remote (manifest_placement "remote") or discoverable: `<{BASE_URL}/v1/manifests/{manifest id}>; rel="c2pa-manifest"`, where the public manifest repository serves its manifest store (C2PA 2.2 §15.5.3.2, manifest discovery over HTTP). Absent otherwise. */
                        Link?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "image/jpeg": string;
                        "image/png": string;
                        "image/webp": string;
                        "image/gif": string;
                        "image/tiff": string;
                        "image/x-adobe-dng": string;
                        "image/avif": string;
                        "image/heic": string;
                        "image/heif": string;
                        "image/jxl": string;
                        "image/svg+xml": string;
                        "video/mp4": string;
                        "video/x-m4v": string;
                        "video/quicktime": string;
                        "video/x-msvideo": string;
                        "audio/mp4": string;
                        "audio/mpeg": string;
                        "audio/wav": string;
                        "audio/flac": string;
                        "application/pdf": string;
                        "application/epub+zip": string;
                        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": string;
                        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": string;
                        "application/vnd.openxmlformats-officedocument.presentationml.presentation": string;
                        "application/vnd.oasis.opendocument.text": string;
                        "application/vnd.oasis.opendocument.spreadsheet": string;
                        "application/vnd.oasis.opendocument.presentation": string;
                        "application/vnd.oasis.opendocument.graphics": string;
                        "application/zip": string;
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a file's C2PA manifest against the trust in use (the service's roots, the trust lists, the operator's anchors and the organisation's own, /org/trust-anchors) and report the signer's revocation status and on-chain anchor
         * @description Takes every format the service signs (JPEG, PNG, WebP, GIF, TIFF, DNG, AVIF, HEIC, HEIF, JPEG XL, SVG images; MP4, M4V, QuickTime, AVI video; M4A, MP3, WAV, FLAC audio; PDF, EPUB, Word, Excel, PowerPoint, OpenDocument documents), each up to its kind's upload limit (MAX_UPLOAD_BYTES for images, MAX_UPLOAD_BYTES_VIDEO, MAX_UPLOAD_BYTES_AUDIO); c2pa-rs reads every file in the verification pool (VERIFY_POOL_SIZE processes of its own, VERIFY_QUEUE_LIMIT more waiting, then 503 verification_busy with Retry-After), one larger than MAX_UPLOAD_BYTES from disk rather than whole (an MP4, M4V, MOV, M4A, WAV, MP3 or FLAC in bounded memory, whatever its size: its manifest store read out of the file and validated by c2pa-rs, its BMFF hash or data hash checked against the file by streaming, with the verdict c2pa-rs gives the whole file; crjson then reports the store with that verdict on the binding). An image declaring more than MAX_IMAGE_PIXELS pixels is 422 image_too_large. A sidecar manifest store may come with the file (part manifest), or alone (part file); a remote manifest is fetched (REMOTE_MANIFESTS; kept REMOTE_MANIFESTS_CACHE_SECONDS; beyond REMOTE_MANIFESTS_CONCURRENCY fetches at once, 503 remote_fetch_busy with Retry-After; every request a fetch makes, each redirect included, counts against the client address's REMOTE_MANIFESTS_PER_ADDRESS per minute, beyond 429 remote_fetch_rate_limited, and the host's REMOTE_MANIFESTS_PER_HOST, beyond 503 remote_host_busy); an unsupported algorithm or a remote manifest that cannot be fetched is a 200 Invalid with its status code (algorithm.unsupported, manifest.inaccessible); ?format=crjson answers c2pa-rs's crJSON report instead. A file without a manifest is a 200 with validation_state "none" and, in recovered, the manifests recovered by its fingerprint (as POST /v1/verify, plus the organisation's own non-discoverable files). The file is not kept. A fragmented MP4 rendition (one part init, its fragment parts in order, up to MAX_RENDITION_FRAGMENTS) is answered with its manifest's verdict and one verdict per segment (fragments), each segment checked in bounded memory against the Merkle tree of the init segment's c2pa.hash.bmff.v3 as c2pa-rs's fromBlobFragment checks it (format=crjson is 400 crjson_not_for_renditions). For a file the service anchored, anchor.chain reports whether the file's proof recomputes to a root that is the input of the named transaction, read from the chain (not from the service's database).
         */
        post: {
            parameters: {
                query?: {
                    /** @description json (default): the service's verdict. crjson: c2pa-rs's crJSON report, as c2pa-rs writes it under the trust settings verification uses (no permalink is kept); 422 no_credentials without a manifest, unreadable_credentials for a manifest c2pa-rs writes no report of (its status code, e.g. algorithm.unsupported, is in the json verdict), manifest_inaccessible for a remote manifest that could not be fetched */
                    format?: "json" | "crjson";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "multipart/form-data": {
                        /**
                         * Format: binary
                         * @description the file to verify, or a .c2pa manifest store alone (its report; the binding to an asset is then not checked)
                         */
                        file: string;
                        /**
                         * Format: binary
                         * @description the file's sidecar manifest store (.c2pa): read with the file, its data hash checked against the file
                         */
                        manifest?: string;
                        /**
                         * Format: binary
                         * @description instead of file: a fragmented MP4 rendition's init segment (signed-in verify only), with its fragment parts
                         */
                        init?: string;
                        /** @description the rendition's media segments (.m4s), one part each, in order: one verdict each */
                        fragment?: string[];
                    };
                };
            };
            responses: {
                /** @description The verdict: of the file, or of the rendition and each of its segments */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PublicVerification"] | components["schemas"]["RenditionVerification"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file exceeds the upload limit (413) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not an image, video or audio format the service reads, told by content (415) */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file is sound but its C2PA data cannot be parsed (422, code unreadable_credentials), or an image declares more than MAX_IMAGE_PIXELS pixels (422, image_too_large), or an ISO BMFF file has more than 10,000 boxes or nests them more than 32 deep (422, media_too_complex: refused before c2pa-rs reads it); a damaged file (cut short, out of bounds) is a 400 corrupt_image or corrupt_media naming what is wrong */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this address (429, with Retry-After): remote_fetch_rate_limited (its remote-manifest requests reached REMOTE_MANIFESTS_PER_ADDRESS this minute) */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready); or remote-manifest fetches are at a limit: remote_fetch_busy (REMOTE_MANIFESTS_CONCURRENCY) or remote_host_busy (the manifest's host had REMOTE_MANIFESTS_PER_HOST requests this minute), with Retry-After */
                503: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify any file without an account: its embedded Content Credentials, or the ones recovered by its fingerprint
         * @description Every format the service signs (JPEG, PNG, WebP, GIF, TIFF, DNG, AVIF, HEIC, HEIF, JPEG XL, SVG images; MP4, M4V, QuickTime, AVI video; M4A, MP3, WAV, FLAC audio; PDF, EPUB, Word, Excel, PowerPoint, OpenDocument documents), as multipart/form-data (part file, and optionally part manifest: its .c2pa sidecar) or as the body in its own media type; a .c2pa manifest store (application/c2pa) alone gets its own report. A JSON body {"url": "https://..."} names the file instead: it is fetched through the outbound guard as remote manifests are (https, public addresses only after DNS resolution, at most 3 redirects and 10 s, at most MAX_UPLOAD_BYTES, each request counted against REMOTE_MANIFESTS_PER_ADDRESS and REMOTE_MANIFESTS_PER_HOST; REMOTE_MANIFESTS=off fetches nothing: 422 url_fetch_disabled), and the answer's Link header with rel="c2pa-manifest" (C2PA 2.2 §15.5.3.2) is looked at before the XMP reference: the manifest it names is fetched and read with the file as its sidecar (the answer's fetched says which). A file whose manifest is remote is verified with the manifest fetched from the URL it names (REMOTE_MANIFESTS, through the outbound guard; kept REMOTE_MANIFESTS_CACHE_SECONDS; beyond REMOTE_MANIFESTS_CONCURRENCY fetches at once, 503 remote_fetch_busy with Retry-After; every request a fetch makes, each redirect included, counts against the client address's REMOTE_MANIFESTS_PER_ADDRESS per minute, beyond 429 remote_fetch_rate_limited, and the host's REMOTE_MANIFESTS_PER_HOST, beyond 503 remote_host_busy); one that cannot be fetched is a 200 Invalid with manifest.inaccessible, as an unsupported signature algorithm is a 200 Invalid with algorithm.unsupported. ?format=crjson answers c2pa-rs's crJSON report instead. For a file with an embedded manifest: what POST /v1/media/verify answers (c2pa-rs verdict against the service's roots, signer, revocation, on-chain anchor). For an image without one: `recovered`, the manifests of discoverable signed files whose ISCC Image-Code (io.iscc.v0) is within 12 bits of the file's, nearest first, each with its manifest, signer, anchor and Hamming distance, marked recovered_by fingerprint and bound_to_file false: they are not bound to these bytes. The result is kept by the file's SHA-256 for its permalink (GET /v1/verify/{sha256}) when it is what the file alone proves (its embedded manifest, or none): a verdict read from a sidecar sent with the file or from a remote manifest is answered with permalink null and not kept, and leaves the file's permalink as it was; nothing else about the file is kept. The file is read, decoded and fingerprinted in the verification pool (503 verification_busy with Retry-After when it is full; a client that hangs up has its work dropped or stopped); an image declaring more than MAX_IMAGE_PIXELS pixels is refused from its header (422 image_too_large). At most MAX_UPLOAD_BYTES. Rate limited per client (PUBLIC_RATE_LIMIT per minute, and PUBLIC_CONCURRENCY_PER_ADDRESS requests at work, each counted until its pool work has ended: 429 too_many_concurrent_requests).
         */
        post: {
            parameters: {
                query?: {
                    /** @description json (default): the service's verdict. crjson: c2pa-rs's crJSON report, as c2pa-rs writes it under the trust settings verification uses (no permalink is kept); 422 no_credentials without a manifest, unreadable_credentials for a manifest c2pa-rs writes no report of (its status code, e.g. algorithm.unsupported, is in the json verdict), manifest_inaccessible for a remote manifest that could not be fetched */
                    format?: "json" | "crjson";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "multipart/form-data": {
                        /**
                         * Format: binary
                         * @description the file to verify, or a .c2pa manifest store alone (its report; the binding to an asset is then not checked)
                         */
                        file: string;
                        /**
                         * Format: binary
                         * @description the file's sidecar manifest store (.c2pa): read with the file, its data hash checked against the file
                         */
                        manifest?: string;
                    };
                    "image/jpeg": string;
                    "image/png": string;
                    "image/webp": string;
                    "image/gif": string;
                    "image/tiff": string;
                    "image/x-adobe-dng": string;
                    "image/avif": string;
                    "image/heic": string;
                    "image/heif": string;
                    "image/jxl": string;
                    "image/svg+xml": string;
                    "video/mp4": string;
                    "video/x-m4v": string;
                    "video/quicktime": string;
                    "video/x-msvideo": string;
                    "audio/mp4": string;
                    "audio/mpeg": string;
                    "audio/wav": string;
                    "audio/flac": string;
                    "application/pdf": string;
                    "application/epub+zip": string;
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": string;
                    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": string;
                    "application/vnd.openxmlformats-officedocument.presentationml.presentation": string;
                    "application/vnd.oasis.opendocument.text": string;
                    "application/vnd.oasis.opendocument.spreadsheet": string;
                    "application/vnd.oasis.opendocument.presentation": string;
                    "application/vnd.oasis.opendocument.graphics": string;
                    "application/c2pa": string;
                    "application/json": components["schemas"]["VerifyUrlInput"];
                };
            };
            responses: {
                /** @description The verdict */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PublicVerification"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file exceeds the upload limit (413) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not an image, video or audio format the service reads, told by content (415) */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unreadable_credentials (C2PA data that cannot be parsed), image_too_large, media_too_complex; for a file named by URL: url_not_allowed (not https, credentials in it, or a private address), url_not_resolvable, url_fetch_failed (timeout, too large, too many redirects, an answer other than 200), url_fetch_disabled (REMOTE_MANIFESTS=off) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests from this address (429, with Retry-After): rate_limited (PUBLIC_RATE_LIMIT), too_many_concurrent_requests (PUBLIC_CONCURRENCY_PER_ADDRESS), or remote_fetch_rate_limited (its remote-manifest requests reached REMOTE_MANIFESTS_PER_ADDRESS this minute) */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready); or remote-manifest fetches are at a limit: remote_fetch_busy (REMOTE_MANIFESTS_CONCURRENCY) or remote_host_busy (the manifest's host had REMOTE_MANIFESTS_PER_HOST requests this minute), with Retry-After */
                503: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/verify/{sha256}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The last public verification of a file, by its SHA-256 (the permalink of the verify page)
         * @description What POST /v1/verify answered for the file alone (never a verdict read from a sidecar or remote manifest) with this hash, and when (checked_at), brought up to date as it is read: recovered manifests are looked up again by the stored fingerprint (a file no longer discoverable is not shown), and the signer's revocation and the file's anchor are read again. Only files someone verified publicly are known here; a file the service signed for an organisation that has since made it non-discoverable is 404.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    sha256: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The stored verdict */
                200: {
                    headers: {
                        /** @description When the signed file's manifest is remote (manifest_placement "remote") or discoverable: `<{BASE_URL}/v1/manifests/{manifest id}>; rel="c2pa-manifest"`, where the public manifest repository serves its manifest store (C2PA 2.2 §15.5.3.2, manifest discovery over HTTP). Absent otherwise. */
                        Link?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["PublicVerification"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/media/anchors/{sha256}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public anchor proof of a signed file, by the SHA-256 of its bytes (no credentials needed)
         * @description status pending (waiting in the pending batch), anchoring (batch sealed, transaction on its way) or anchored (proof complete).
         *     Check an anchored proof without the service - leaf = sha256(0x00 || file_sha256); for each path step
         *     h = sha256(0x01 || hash || h) when side is left, sha256(0x01 || h || hash) when right; h must equal root; the transaction
         *     transaction_hash on chain chain_id must be mined in block block_number with input 0x6d73736101 || root.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    sha256: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The file's anchor */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AnchorLookup"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The service never signed a file with this SHA-256 */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/manifest-templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organisation's manifest templates (current versions), newest first
         * @description Deleted templates are not listed. Admins, signers, viewers and API keys may read templates.
         */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description next_cursor of the previous page */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of templates */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            templates: components["schemas"]["ManifestTemplate"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a manifest template (admin); it starts at version 1
         * @description The defaults use the sign request's manifest fields and rules, without title and dateCreated (given per request). Names are unique among the organisation's templates (409 template_name_taken).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ManifestTemplateInput"];
                };
            };
            responses: {
                /** @description The template */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ManifestTemplate"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/manifest-templates/{template_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A manifest template's current version */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    template_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The template */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ManifestTemplate"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /**
         * Replace a manifest template's name and defaults (admin); its version goes up by one
         * @description A full replacement, with the same body as create (defaults left out are removed). Every update makes a new version, kept for good; jobs signed with an earlier version keep it, and the manifest they applied, unchanged.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    template_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ManifestTemplateInput"];
                };
            };
            responses: {
                /** @description The template at its new version */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ManifestTemplate"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Conflicts with the current state (409) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /**
         * Delete a manifest template (admin)
         * @description It can no longer be read, listed or signed with, and its name is free again. Its versions are kept, so jobs that used it still name it and GET /v1/manifest-templates/{template_id}/versions/{version} still answers.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    template_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/manifest-templates/{template_id}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One saved version of a manifest template, as jobs that used it were given it
         * @description Answers for deleted templates too (deleted is then true), so a job's template reference always resolves.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    template_id: string;
                    version: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The version */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ManifestTemplateVersion"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/services/supportedAlgorithms": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Soft binding algorithms this repository answers queries for (C2PA Soft Binding Resolution API) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The algorithms */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            watermarks: {
                                alg: string;
                            }[];
                            fingerprints: {
                                alg: string;
                            }[];
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/matches/byBinding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Manifest ids whose soft binding matches a value (C2PA Soft Binding Resolution API queryByBinding)
         * @description alg io.iscc.v0; value: base64 of the ISCC Image-Code's bytes (header and 64-bit body, as the c2pa.soft-binding assertion carries it) or the ISCC string (ISCC:EEA...). Fingerprints match within a Hamming distance of 12 of 64 bits, nearest first; similarityScore is 100 - distance * 100 / 64.
         */
        get: {
            parameters: {
                query: {
                    maxResults?: number;
                    alg: string;
                    value: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The matches */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SoftBindingQueryResult"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** The same query with the binding in a JSON body (C2PA queryByLargeBinding) */
        post: {
            parameters: {
                query?: {
                    maxResults?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @example io.iscc.v0 */
                        alg: string;
                        value: string;
                    };
                };
            };
            responses: {
                /** @description The matches */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SoftBindingQueryResult"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/matches/byContent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Manifest ids of signed images that look like the one sent (C2PA Soft Binding Resolution API byContent)
         * @description The body is the image itself, in its own media type (JPEG, PNG, WebP, GIF, TIFF, DNG, AVIF, HEIC, HEIF, JPEG XL, SVG images), or multipart/form-data with a part named file. Its ISCC Image-Code is computed (in the verification pool: 503 verification_busy when it is full) and matched as for byBinding. The image is not kept. An image declaring more than MAX_IMAGE_PIXELS pixels is 422 image_too_large; one that cannot be decoded 400 corrupt_image. At most PUBLIC_CONCURRENCY_PER_ADDRESS requests at work per client, each counted until its pool work has ended (429 too_many_concurrent_requests); a client that hangs up has its work dropped or stopped.
         */
        post: {
            parameters: {
                query?: {
                    alg?: string;
                    maxResults?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "image/jpeg": string;
                    "image/png": string;
                    "image/webp": string;
                    "image/gif": string;
                    "image/tiff": string;
                    "image/x-adobe-dng": string;
                    "image/avif": string;
                    "image/heic": string;
                    "image/heif": string;
                    "image/jxl": string;
                    "image/svg+xml": string;
                    "multipart/form-data": {
                        /** Format: binary */
                        file: string;
                    };
                };
            };
            responses: {
                /** @description The matches */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SoftBindingQueryResult"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The file exceeds the upload limit (413) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not an image, video or audio format the service reads, told by content (415) */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The image declares more pixels than MAX_IMAGE_PIXELS (422, code image_too_large): refused from its header, before anything decodes it; or an ISO BMFF file (MP4, MOV, M4A, AVIF, HEIC, HEIF) has more than 10,000 boxes or nests them more than 32 deep (422, media_too_complex) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/manifests/{manifestId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A signed file's C2PA manifest store (application/c2pa), or its JSON view with Accept: application/json
         * @description Public for discoverable files and for remote manifests (signed with manifest_placement "remote": the file names this URL, so it is served whatever the file's discoverability); any other id is 404. The JSON view shows what the manifest says (title, creator, actions, assertions), its signer (with signer.trust_source, judged under the same trust as the public verify) and the signer's revocation status, its signature (trusted, valid or invalid; the hard binding cannot be checked without the original file, so it is left out), c2pa-rs's status codes, the SHA-256 of the signed file and its on-chain anchor.
         */
        get: {
            parameters: {
                query?: {
                    /** @description accepted; the store holds the active manifest (and, for a file that already had one, its parent) */
                    returnActiveManifest?: boolean;
                };
                header?: never;
                path: {
                    manifestId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The manifest store, or its JSON view */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/c2pa": string;
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The verification pool is full (503, code verification_busy, with Retry-After: VERIFY_POOL_SIZE files are being read and VERIFY_QUEUE_LIMIT more wait), its process failed (verification_failed, with Retry-After) or the file took too long (verification_timeout); or the trust lists it judges by cannot be loaded (trust_lists_unavailable, see /health/ready) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/manifests/{manifestId}/thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A small JPEG of the signed image the manifest belongs to (for side-by-side comparison) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    manifestId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description JPEG, at most 320 px on its long side: of an image, drawn from the signed file; of a video, its manifest's claim thumbnail (404 for audio and for video signed without one) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "image/jpeg": string;
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (429, code rate_limited), or on the public verification endpoints more than PUBLIC_CONCURRENCY_PER_ADDRESS at work from this address (each counted until its work has ended, even after the client hung up) (too_many_concurrent_requests); see the Retry-After header */
                429: {
                    headers: {
                        /** @description seconds to wait */
                        "Retry-After"?: number;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organisation's certificate requests to external CAs, pending and past (newest first) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The requests */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            requests: components["schemas"]["ExternalCertificateRequest"][];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Ask for a certificate from an external CA: a new vault key and a PKCS#10 request (CSR) for it
         * @description The scheduler creates a new key in the key vault and the CSR, signed by that key, asking for the C2PA claim-signer extensions. Send csr_pem to the CA (one on the C2PA Trust List, for files every validator trusts), then post the chain it issues to .../chain.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ExternalCertificateRequestInput"];
                };
            };
            responses: {
                /** @description The request with its CSR */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The organisation has MAX_PENDING_CERTIFICATE_REQUESTS requests open, their key being made or waiting for a chain (too_many_pending_requests): hand in a chain for one, or withdraw one */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The scheduler has not made the key within 15 s (csr_pending: the request stands), or the key vault failed */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate/requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One certificate request */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The request */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate/requests/{request_id}/chain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hand over the chain the CA issued for the request; once checked, the organisation signs with it
         * @description Checked before use: the leaf holds the request's vault key, every certificate is within its validity, the leaf meets the C2PA claim-signer profile, and the chain verifies up to a trust anchor (the C2PA Trust List, or TRUST_ANCHORS_FILE). The previous certificates stay in the history; files signed with them keep them.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ExternalCertificateChainInput"];
                };
            };
            responses: {
                /** @description The accepted request, with its certificate */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The request is not waiting for a chain (request_not_pending) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The chain is refused (422), the code naming the check: chain_invalid (not PEM certificates), chain_key_mismatch (the leaf does not hold this request's key), chain_expired (a certificate is outside its validity), chain_profile (the leaf does not meet the C2PA claim-signer profile: keyUsage, EKU, ...), chain_untrusted (it does not verify up to the C2PA Trust List or an anchor in TRUST_ANCHORS_FILE) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate/requests/{request_id}/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Withdraw a request waiting for its key or chain (one the CA will not answer): it then takes no chain, and no longer counts against MAX_PENDING_CERTIFICATE_REQUESTS
         * @description The request ends as failed with error code withdrawn and stays in the list. Its vault key stays (the API cannot delete keys); it never signs.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The withdrawn request */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The request is accepted or failed already (request_not_pending) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate/requests/{request_id}/revoked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record that the external CA revoked the certificate: the organisation stops signing with it at once
         * @description Revocation is the CA's; this records it here. Sign jobs then fail with no_signing_certificate (the service does not fall back to another certificate) until a new chain is accepted or an admin rotates to the service CA. The service's own OCSP responder and CRLs never answer for external certificates.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    request_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ExternalCertificateRevocationInput"];
                };
            };
            responses: {
                /** @description The request, its certificate marked revoked */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ExternalCertificateRequest"];
                    };
                };
                /** @description Invalid input (400): the message names the field */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found, or belongs to another organisation (404) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No accepted certificate (not_accepted), or already recorded (already_revoked) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/certificates/signing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's organisation's current signing certificate and its chain
         * @description Each organisation signs with its own certificate (subject O and CN: the organisation's name), issued by the service's sub-CA. An organisation from before per-organisation certificates has one once it signs its first file.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The signing certificate */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SigningCertificate"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The organisation has no valid signing certificate (not issued yet, revoked, or no issuing CA) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organisation's signing certificate (with its chain) and every certificate it had
         * @description status: valid (it signs), not_issued (the next signature issues one: an organisation from before per-organisation certificates, or its certificate expired), revoked (rotate, or accept a new external chain, to sign again), expired (an external CA's certificate expired: the same), no_issuing_ca (the operator has to run pki init). current names who issued it (issued_by, source: the service CA for private deployments, or an external CA) and warns from 30 days before expiry.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The certificate state */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "valid" | "not_issued" | "revoked" | "expired" | "no_issuing_ca";
                            current: components["schemas"]["SigningCertificate"] & unknown;
                            /** @description newest first */
                            certificates: {
                                serial: string;
                                subject: string;
                                issuer: string;
                                issued_by: string;
                                /** @enum {string} */
                                source: "service_ca" | "external_ca";
                                /** Format: date-time */
                                not_before: string;
                                /** Format: date-time */
                                not_after: string;
                                /** @enum {string} */
                                status: "valid" | "revoked" | "expired" | "not_yet_valid";
                                /** Format: date-time */
                                revoked_at: string | null;
                                revocation_reason: string | null;
                            }[];
                        };
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/org/signing-certificate/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue the organisation a new signing certificate with a new vault key; it signs from now on
         * @description The previous certificate is not revoked: files signed with it stay valid (an operator revokes a compromised one with the pki CLI). The subject carries the organisation's current name.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The new certificate */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SigningCertificate"];
                    };
                };
                /** @description Missing, invalid or expired credentials (401): codes unauthenticated, invalid_token, token_expired, invalid_api_key, invalid_credentials */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The caller may not do this (403) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No issuing CA, the key vault is unavailable, or the scheduler (which issues certificates) has not answered within 15 s (issuance_pending: the request stands) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness, and reachability of the database and Redis */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description All dependencies answer */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Health"];
                    };
                };
                /** @description The database does not answer */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Health"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: whether this process can take sign requests now
         * @description 200 when the database, Redis (for the BullMQ queue), the file store, the key vault (asked for the issuing CA's key) and a valid issuing CA for organisations' signing certificates (signing_certificate) are all there; otherwise 503 with the failing parts named in checks. Use it for load-balancer readiness; /health is the liveness check. Whether one organisation may sign (its own certificate revoked) is answered by POST /v1/media/sign (503 no_signing_certificate) and GET /org/signing-certificate.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ready */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
                /** @description Not ready; checks names what fails */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        TokenPair: {
            /** @description JWT, HS256, expires after 15 minutes */
            access_token: string;
            /** @description JWT, expires after 30 days, single use */
            refresh_token: string;
            /** @enum {string} */
            token_type: "bearer";
            /**
             * @description access token lifetime in seconds
             * @example 900
             */
            expires_in: number;
        };
        Error: {
            error: {
                /** @example validation_error */
                code: string;
                /** @example email is required */
                message: string;
            };
        };
        RegisterInput: {
            /** Format: email */
            email: string;
            /** @description at least 10 characters, at most 72 bytes */
            password: string;
            org_name: string;
            /**
             * @description the person's name, as their identity certificate names them (CN)
             * @example Jane Doe
             */
            name?: string;
        };
        LoginInput: {
            /** Format: email */
            email: string;
            /** @description at least 10 characters, at most 72 bytes */
            password: string;
        };
        Me: {
            /** Format: uuid */
            user_id: string;
            email: string;
            /** @description the person's name (CN of their identity certificate); null until set */
            name: string | null;
            /** Format: uuid */
            org_id: string;
            role: components["schemas"]["Role"];
        };
        /** @enum {string} */
        Role: "admin" | "signer" | "viewer";
        MePatch: {
            /**
             * @description the person's name, as their identity certificate names them (CN)
             * @example Jane Doe
             */
            name: string;
        };
        IdentityCertificate: {
            serial: string;
            /** @example CN=Jane Doe, O=Daily Planet */
            subject: string;
            issuer: string;
            /** @description the e-mail address in subjectAltName (rfc822Name) */
            email: string;
            /** Format: date-time */
            not_before: string;
            /** Format: date-time */
            not_after: string;
            fingerprint_sha256: string;
            /** @enum {string} */
            status: "valid" | "revoked" | "expired" | "not_yet_valid";
            /** Format: date-time */
            revoked_at: string | null;
            revocation_reason: string | null;
            certificate_pem: string;
            /** @description the certificate, then the sub-CA that issued it (an external CA: the intermediates it gave) */
            chain_pem: string;
            issued_by: string;
        };
        IdentityCertificateStatus: {
            name: string | null;
            current: components["schemas"]["IdentityCertificate"] & unknown;
            /** @description every identity certificate the service CA issued the user, newest first (those from an external CA: GET /auth/me/identity-certificate/requests) */
            certificates: components["schemas"]["IdentityCertificate"][];
        };
        ExternalCertificateRequest: {
            /** Format: uuid */
            request_id: string;
            /**
             * @description creating_key: the scheduler is making the key and CSR; pending: waiting for the CA chain; accepted: the certificate is stored
             * @enum {string}
             */
            status: "creating_key" | "pending" | "accepted" | "failed";
            subject: {
                CN: string;
                O: string;
                /** @description always for an organisation's request; for a person's, when PKI_COUNTRY is set */
                C?: string;
                OU?: string;
                L?: string;
                ST?: string;
            };
            /** @description PKCS#10, signed by the new vault key; asks for keyUsage digitalSignature (critical), EKU id-kp-documentSigning and id-kp-emailProtection (a person's identity certificate: EKU id-kp-emailProtection and their e-mail address in subjectAltName) */
            csr_pem: string | null;
            /** Format: date-time */
            created_at: string;
            error: {
                code: string;
                message: string;
            } | null;
            certificate: {
                serial: string;
                subject: string;
                issuer: string;
                /** Format: date-time */
                not_before: string;
                /** Format: date-time */
                not_after: string;
                fingerprint_sha256: string;
                chain_pem: string;
                /** Format: date-time */
                accepted_at: string;
                /** Format: date-time */
                revoked_at: string | null;
                revocation_reason: string | null;
            } | null;
        };
        ExternalCertificateChainInput: {
            /** @description PEM certificates: the leaf the CA issued for the request first, then the intermediates it gave */
            chain_pem: string;
        };
        ExternalCertificateRevocationInput: {
            /**
             * @description the reason the CA gave (RFC 5280 CRLReason)
             * @enum {string}
             */
            reason: "unspecified" | "keyCompromise" | "cACompromise" | "affiliationChanged" | "superseded" | "cessationOfOperation" | "certificateHold" | "removeFromCRL" | "privilegeWithdrawn" | "aACompromise";
            /**
             * Format: date-time
             * @description when the CA revoked it (default: now)
             */
            revoked_at?: string;
        };
        OrgUser: {
            /** Format: uuid */
            user_id: string;
            email: string;
            name: string | null;
            /** Format: uuid */
            org_id: string;
            role: components["schemas"]["Role"];
            /** Format: date-time */
            created_at: string;
        };
        NewOrgUser: {
            /** Format: email */
            email: string;
            /** @description at least 10 characters, at most 72 bytes */
            password: string;
            role: components["schemas"]["Role"];
            /**
             * @description the person's name, as their identity certificate names them (CN)
             * @example Jane Doe
             */
            name?: string;
        };
        NewApiKey: components["schemas"]["ApiKey"] & {
            /** @description the raw key, shown only once */
            key: string;
        };
        ApiKey: {
            /** Format: uuid */
            key_id: string;
            name: string;
            /** @example svc_sk_live_AbC123 */
            prefix: string;
            /**
             * Format: uuid
             * @description the user the key signs as, when an admin bound it to one
             */
            user_id: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
        };
        OrganisationTrustAnchor: {
            /** Format: uuid */
            anchor_id: string;
            label: string | null;
            /** @example CN=Partner Agency Root, O=Partner Agency */
            subject: string;
            /** @description SHA-256 of the certificate's DER, lowercase hex */
            fingerprint_sha256: string;
            /**
             * Format: date-time
             * @description when the certificate expires
             */
            not_after: string;
            /**
             * Format: uuid
             * @description the admin who added it (null once that user is deleted)
             */
            added_by: string | null;
            /** Format: date-time */
            added_at: string;
            pem: string;
        };
        WebhookWithSecret: components["schemas"]["Webhook"] & {
            /**
             * @description the signing secret (Standard Webhooks form, whsec_ + base64), shown only in this answer
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        /** @enum {string} */
        WebhookEventType: "sign_job.signed" | "sign_job.failed" | "file.anchored" | "signing_certificate.issued" | "signing_certificate.rotated" | "signing_certificate.revoked" | "signing_certificate.expiring";
        Webhook: {
            /** Format: uuid */
            webhook_id: string;
            /** Format: uri */
            url: string;
            events: components["schemas"]["WebhookEventType"][];
            description: string;
            enabled: boolean;
            /** @description why the service disabled it (deliveries failing for long), or null */
            disabled_reason: string | null;
            /** Format: date-time */
            disabled_at: string | null;
            /** @description during a rotation grace period: when the old secret stops signing */
            secret_rotation: {
                /** Format: date-time */
                previous_secret_expires_at: string;
            } | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        WebhookDelivery: {
            /** Format: uuid */
            delivery_id: string;
            /**
             * @description the webhook-id header of every attempt
             * @example evt_5f1c0d9e8a7b6c5d4e3f2a1b0c9d8e7f
             */
            event_id: string;
            event_type: components["schemas"]["WebhookEventType"];
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            attempts: number;
            /** @description HTTP status of the last attempt (null: no answer) */
            response_status: number | null;
            duration_ms: number | null;
            error: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_attempt_at: string | null;
            attempt_log: {
                number: number;
                /** Format: date-time */
                at: string;
                /** @enum {string} */
                outcome: "delivered" | "failed";
                response_status: number | null;
                duration_ms: number;
                error: string | null;
            }[];
        };
        AuditEvent: {
            /** Format: uuid */
            id: string;
            leaf_index: number;
            /**
             * Format: byte
             * @description base64 SHA-256(0x00 || RFC 8785 JSON of this event without leaf_index and leaf_hash)
             * @example n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=
             */
            leaf_hash: string;
            /** Format: date-time */
            time: string;
            /** Format: uuid */
            org_id: string | null;
            /** @description {type: user|api_key|service|operator|anonymous, id | role | command | address} */
            actor: {
                [key: string]: string;
            };
            /** @enum {string} */
            action: "account.registered" | "account.sign_in" | "account.sign_in_failed" | "account.sign_in_throttled" | "account.signed_out" | "account.refresh_token_reused" | "user.created" | "user.role_changed" | "user.deleted" | "api_key.created" | "api_key.revoked" | "template.created" | "template.changed" | "template.deleted" | "trust_anchor.created" | "trust_anchor.deleted" | "webhook.created" | "webhook.changed" | "webhook.deleted" | "webhook.secret_rotated" | "webhook.disabled" | "sign.requested" | "sign.signed" | "sign.failed" | "certificate.requested" | "certificate.issued" | "certificate.rotated" | "certificate.revoked" | "certificate.external_accepted" | "certificate.external_refused" | "crl.published" | "operator.command" | "audit.archived" | "service.started";
            target: {
                type: string;
                id: string;
            } | null;
            /** @enum {string} */
            outcome: "success" | "failure" | "refused";
            details: {
                [key: string]: unknown;
            };
        };
        AuditCheckpoint: {
            origin: string;
            tree_size: number;
            /**
             * Format: byte
             * @description SHA-256, base64
             * @example n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=
             */
            root_hash: string;
            /** @description the C2SP tlog-checkpoint signed note (ECDSA P-384 / SHA-384 signature line) */
            note: string;
            /** @description the checkpoint key's DER SubjectPublicKeyInfo, base64 (pin it out of band) */
            public_key: string;
            /** Format: date-time */
            signed_at: string;
        };
        Organisation: {
            /** Format: uuid */
            org_id: string;
            name: string;
            /** @description whether its signed files are discoverable in the public manifest repository (unless a request or template chose otherwise) */
            discoverable: boolean;
            /** @description whether its images are signed with a soft binding: an ISCC fingerprint in the manifest (c2pa.soft-binding) and in the index that finds copies by content (unless a request or template chose otherwise) */
            soft_binding: boolean;
            /** Format: date-time */
            created_at: string;
        };
        Upload: {
            /** Format: uuid */
            upload_id: string;
            /** @description the file's SHA-256; a rendition's is its init segment's */
            sha256: string;
            /** @description bytes; a rendition's, of all its parts */
            size: number;
            mime_type: components["schemas"]["MediaType"];
            filename: string;
            /** @description a document's title from its own metadata (PDF Info or XMP dc:title, EPUB package dc:title, OOXML docProps/core.xml, OpenDocument meta.xml), which a sign request without manifest.title takes; null for other media and documents that give none */
            document_title: string | null;
            /** Format: date-time */
            created_at: string;
            rendition: components["schemas"]["RenditionSummary"];
        };
        /**
         * @description a format of the registry, told by content when the file was uploaded
         * @enum {string}
         */
        MediaType: "image/jpeg" | "image/png" | "image/webp" | "image/gif" | "image/tiff" | "image/x-adobe-dng" | "image/avif" | "image/heic" | "image/heif" | "image/jxl" | "image/svg+xml" | "video/mp4" | "video/x-m4v" | "video/quicktime" | "video/x-msvideo" | "audio/mp4" | "audio/mpeg" | "audio/wav" | "audio/flac" | "application/pdf" | "application/epub+zip" | "application/vnd.openxmlformats-officedocument.wordprocessingml.document" | "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" | "application/vnd.openxmlformats-officedocument.presentationml.presentation" | "application/vnd.oasis.opendocument.text" | "application/vnd.oasis.opendocument.spreadsheet" | "application/vnd.oasis.opendocument.presentation" | "application/vnd.oasis.opendocument.graphics";
        /** @description a fragmented MP4 rendition (init segment, media segments, playlists); null for a single file */
        RenditionSummary: {
            /** @description media segments, in order */
            fragments: number;
            playlists: number;
            /** @description every part in order (init, segments, playlists): in the answer to the upload */
            parts?: components["schemas"]["RenditionPart"][];
        } | null;
        RenditionPart: {
            /** @enum {string} */
            role: "init" | "fragment" | "playlist";
            /** @description the name it was sent under, and comes back under in the signed rendition */
            filename: string;
            size: number;
            sha256: string;
        };
        UploadSession: {
            /** Format: uuid */
            session_id: string;
            /**
             * Format: uri
             * @description where HEAD, PATCH and DELETE go
             */
            upload_url: string;
            /**
             * @description receiving bytes; being checked and stored; completed (`upload` is set)
             * @enum {string}
             */
            status: "receiving" | "completing" | "completed";
            filename: string;
            /** @description the declared Upload-Length */
            size: number;
            /** @description bytes received so far */
            offset: number;
            upload: components["schemas"]["Upload"] & unknown;
            /**
             * Format: date-time
             * @description UPLOAD_EXPIRY_HOURS after the last PATCH began; then 404 and swept
             */
            expires_at: string;
            /** Format: date-time */
            created_at: string;
        };
        Job: {
            /** Format: uuid */
            job_id: string;
            /**
             * @description queued -> processing -> signed (file ready) -> anchoring (batch sealed, transaction sent) -> anchored (confirmed); or failed
             * @enum {string}
             */
            status: "queued" | "processing" | "signed" | "anchoring" | "anchored" | "failed";
            /** Format: uuid */
            upload_id: string;
            manifest: components["schemas"]["ManifestInput"];
            /** @description the manifest template and version the job used (GET /v1/manifest-templates/{id}/versions/{version}); null without one */
            template: {
                /** Format: uuid */
                id: string;
                version: number;
            } | null;
            /** @description whether the file is signed with a soft binding (its ISCC fingerprint as a c2pa.soft-binding assertion and in the index that finds copies by content): the request's or the template's choice, null following the organisation's setting (GET /org: soft_binding). Always false (none) for video, audio and documents (PDF, EPUB, Office, OpenDocument): ISCC image codes are of images, and a request or template asking for one there is ignored */
            soft_binding: boolean | null;
            /**
             * @description where the signed file keeps its manifest store: embedded in the file, or remote (in the public manifest repository, named by the file and by its download's Link header)
             * @enum {string}
             */
            manifest_placement: "embedded" | "remote";
            attempts: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** Format: uri */
            status_url: string;
            error: {
                code: string;
                message: string;
            } | null;
            signed_file: {
                /** Format: uuid */
                file_id: string;
                sha256: string;
                size: number;
                mime_type: components["schemas"]["MediaType"];
                /** @description serial (hex) of the signing certificate */
                certificate_serial: string;
                /** @description subject of the signing certificate: the organisation's name (null for files signed before per-organisation certificates) */
                certificate_subject: string | null;
                /** Format: uri */
                download_url: string;
                /** @description a signed fragmented MP4 rendition, downloaded as a zip of its parts (its sha256 and anchor are its signed init segment's, its size that of all its parts); null for a single file */
                rendition: {
                    fragments: number;
                    playlists: number;
                } | null;
            } | null;
            anchor: components["schemas"]["Anchor"];
        };
        /** @description the manifest the job applies: with a template, its defaults merged under the request's fields (kept as signed: later template edits do not change it) */
        ManifestInput: {
            /** @description the work's title (dc:title of the manifest) */
            title: string;
            /** @description ISO 8601 date (YYYY-MM-DD) or date-time with a zone (photoshop:DateCreated in c2pa.metadata) */
            dateCreated?: string;
            /** @description the author, written as dc:creator in the cawg.metadata assertion */
            creator: string;
            /** @description caption or description (dc:description in cawg.metadata) */
            description?: string;
            /** @description IPTC digital source type URL (http://cv.iptc.org/newscodes/digitalsourcetype/<code>) for the c2pa.created action; default http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture. Ignored when the upload already carries a manifest (then c2pa.opened with it as parent ingredient). */
            digitalSourceType?: string;
            publisher?: components["schemas"]["Party"];
            copyrightHolder?: components["schemas"]["Party"] & unknown;
            /** @description copyright notice (dc:rights in cawg.metadata), e.g. "© 2025 Daily Planet" */
            copyrightNotice?: string;
            trainingMining?: components["schemas"]["TrainingMining"];
            /** @description embed a claim thumbnail (c2pa.thumbnail.claim): a JPEG at most 512 px on its long side made by the service, of an image, of a frame of a video (taken by ffmpeg where the worker has it), of a PDF's first page (rendered by pdftoppm where the worker has it) or of an EPUB's cover image. Costs CPU per file (about 25 ms for a 12 MP JPEG, 0.2-0.5 s for a 1080p video); images over 40 megapixels, audio, Office and OpenDocument files, EPUBs without a cover, video without ffmpeg and PDFs without pdftoppm are signed without one. */
            thumbnail?: boolean;
        };
        /** @description the publisher (dc:publisher in cawg.metadata) */
        Party: {
            /** @description the name */
            name: string;
            /**
             * Format: uri
             * @description http or https
             */
            url?: string;
            /**
             * @default Organization
             * @enum {string}
             */
            type: "Organization" | "Person";
        };
        /** @description AI training and data mining choices, written as the entries of the CAWG training and data mining assertion (cawg.training-mining). A use left out is not stated; consumers treat constrained as notAllowed unless they obtain permission. */
        TrainingMining: {
            "cawg.ai_inference"?: components["schemas"]["TrainingMiningEntry"];
            "cawg.ai_generative_training"?: components["schemas"]["TrainingMiningEntry"];
            "cawg.ai_training"?: components["schemas"]["TrainingMiningEntry"];
            "cawg.data_mining"?: components["schemas"]["TrainingMiningEntry"];
        };
        TrainingMiningEntry: {
            /** @enum {string} */
            use: "allowed" | "notAllowed" | "constrained";
            /** @description only with use constrained: the conditions (a licence, a policy URL, free text) */
            constraint_info?: string;
        };
        /** @description the signed file's on-chain anchor (null before the file exists) */
        Anchor: {
            /** @enum {string} */
            status: "pending" | "anchoring" | "anchored";
            /**
             * Format: uri
             * @description public GET /v1/media/anchors/{sha256}
             */
            proof_url: string;
            root: string | null;
            chain_id: number | null;
            /** @description last transaction sent for the batch; may be replaced until anchored */
            transaction_hash: string | null;
            proof: components["schemas"]["AnchorProof"];
        } | null;
        /** @description Self-contained proof that a file's SHA-256 is committed to by a transaction on chain (format mss-anchor-v1) */
        AnchorProof: {
            /** @enum {string} */
            format: "mss-anchor-v1";
            /** @description the leaf, node and transaction encoding, in words */
            encoding: string;
            /** @description SHA-256 of the signed file (hex) */
            file_sha256: string;
            leaf_index: number;
            tree_size: number;
            /** @description siblings from the leaf up, at most ceil(log2(tree_size)); side left: h = sha256(0x01 || hash || h), right: h = sha256(0x01 || h || hash) */
            path: {
                /** @enum {string} */
                side: "left" | "right";
                hash: string;
            }[];
            /** @description Merkle root (hex); the leaf is sha256(0x00 || file_sha256) */
            root: string;
            chain_id: number;
            transaction_hash: string;
            block_number: number;
            block_hash: string;
            /** Format: date-time */
            block_time: string;
            /** @description the service's anchoring account (sender and receiver of the transaction) */
            from_address: string;
            /** @description the transaction input: 0x6d73736101 || root */
            calldata: string;
        } | null;
        SignInput: {
            /** @description whether the signed file (over the template choice) is discoverable in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); null or absent follows the organisation (GET/PATCH /org) */
            discoverable?: boolean | null;
            /** @description whether an image is signed with a soft binding (over the template choice): its ISCC fingerprint as a c2pa.soft-binding assertion and in the index that finds copies by content; false skips the fingerprint. Video, audio and documents are signed without one whatever this says (the job answers soft_binding: false); null or absent follows the organisation (GET/PATCH /org) */
            soft_binding?: boolean | null;
            /**
             * @description where the signed file's manifest store goes (over the template choice): "embedded" in the file, or "remote": kept only in the public manifest repository, whose URL (GET /v1/manifests/{id}, on BASE_URL, served whatever the file's discoverability) the file carries as its XMP dcterms:provenance reference, and which its download names in a Link: <...>; rel="c2pa-manifest" header. Remote works for the formats c2pa-wasm signs itself (images, AVI, PDF); 422 remote_manifest_unsupported for video and audio signed streamed (MP4, M4V, MOV, M4A, WAV, MP3, FLAC, fragmented MP4 renditions) and ZIP containers (EPUB, Office, OpenDocument); null or absent: the template's choice, else embedded
             * @enum {string|null}
             */
            manifest_placement?: "embedded" | "remote" | null;
            /**
             * Format: uuid
             * @description an upload of the organisation (POST /v1/media/upload)
             */
            upload_id: string;
            manifest: components["schemas"]["ManifestRequest"];
            /**
             * Format: uuid
             * @description one of the organisation's manifest templates: its defaults apply under the manifest's fields
             */
            template_id?: string | null;
            /** @description sign as the person too: a CAWG identity assertion (cawg.x509.cose) naming the signed-in user (or the user the API key is bound to), with these roles, signed with their identity certificate's key beside the organisation's claim signature. Without it, the template's identity setting applies (null or absent: the organisation alone). 422 no_identity for an API key bound to no user; 409 identity_certificate_missing without a valid identity certificate (POST /auth/me/identity-certificate, or one from the organisation's external CA: /auth/me/identity-certificate/requests); 422 identity_not_supported for video and audio signed streamed (MP4, M4V, MOV, M4A, WAV, MP3, FLAC). Validators that do not hold the service's identity CA as a CAWG trust anchor read the identity, and so the file, as not trusted. */
            identity?: {
                /**
                 * @example [
                 *       "cawg.creator"
                 *     ]
                 */
                roles: ("cawg.creator" | "cawg.contributor" | "cawg.editor" | "cawg.producer" | "cawg.publisher" | "cawg.sponsor" | "cawg.translator")[];
            } | null;
        };
        /** @description The manifest of a sign request: title is required (a document's may be left out: its own title, else its file name), and creator unless the template (template_id) gives one. A field given here replaces the template's whole value. */
        ManifestRequest: {
            /** @description the work's title (dc:title of the manifest). Required, except for a document (PDF, EPUB, Office, OpenDocument): left out, it is the document's own title (the upload's document_title, from its metadata), else the upload's file name */
            title?: string;
            /** @description ISO 8601 date (YYYY-MM-DD) or date-time with a zone (photoshop:DateCreated in c2pa.metadata) */
            dateCreated?: string;
            /** @description the author, written as dc:creator in the cawg.metadata assertion */
            creator?: string;
            /** @description caption or description (dc:description in cawg.metadata) */
            description?: string;
            /** @description IPTC digital source type URL (http://cv.iptc.org/newscodes/digitalsourcetype/<code>) for the c2pa.created action; default http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture. Ignored when the upload already carries a manifest (then c2pa.opened with it as parent ingredient). */
            digitalSourceType?: string;
            publisher?: components["schemas"]["Party"];
            copyrightHolder?: components["schemas"]["Party"] & unknown;
            /** @description copyright notice (dc:rights in cawg.metadata), e.g. "© 2025 Daily Planet" */
            copyrightNotice?: string;
            trainingMining?: components["schemas"]["TrainingMining"];
            /** @description embed a claim thumbnail (c2pa.thumbnail.claim): a JPEG at most 512 px on its long side made by the service, of an image, of a frame of a video (taken by ffmpeg where the worker has it), of a PDF's first page (rendered by pdftoppm where the worker has it) or of an EPUB's cover image. Costs CPU per file (about 25 ms for a 12 MP JPEG, 0.2-0.5 s for a 1080p video); images over 40 megapixels, audio, Office and OpenDocument files, EPUBs without a cover, video without ffmpeg and PDFs without pdftoppm are signed without one. */
            thumbnail?: boolean;
        };
        PublicVerification: components["schemas"]["Verification"] & {
            /** @description the file's ISCC Image-Code, computed when it has no manifest */
            fingerprint: string | null;
            /** @description empty for a file with an embedded manifest */
            recovered: components["schemas"]["RecoveredManifest"][];
            recovered_note: string | null;
            /** Format: date-time */
            checked_at: string;
            /** @description a file verified by its URL (a JSON body {"url"}): where it came from */
            fetched?: {
                /** @description the URL that answered, after redirects */
                url: string;
                /** @description the manifest store the server named in its Link: <...>; rel="c2pa-manifest" header (C2PA 2.2 §15.5.3.2), looked at before the XMP reference and read with the file as its sidecar; null without one */
                manifest_link: string | null;
                /** @description why the linked manifest was not used: the file was then read alone (its embedded manifest, or the one its XMP names) */
                manifest_link_error?: string;
            };
            /**
             * Format: uri
             * @description the verify page of this result (public verification only); null when the verdict was read from a manifest sent with the file (part manifest) or fetched from the URL the file names (a remote manifest): such a verdict is answered but not kept, since a file's permalink shows only what the file alone proves
             */
            permalink?: string | null;
        };
        AnchorVerification: {
            /** @enum {string} */
            status: "not_anchored" | "pending" | "anchoring" | "anchored";
            proof_url: string | null;
            proof: components["schemas"]["AnchorProof"];
            /** @description the proof checked against the chain itself: verified, failed (with reason) or unavailable (the chain could not be asked) */
            chain: {
                /** @enum {string} */
                result: "verified" | "failed" | "unavailable";
                /** @enum {string} */
                checked_against?: "chain";
                reason?: string;
                message?: string;
                chain_id?: number;
                transaction_hash?: string;
                block_number?: number;
                block_hash?: string;
                /** Format: date-time */
                block_time?: string;
                confirmations?: number;
                from_address?: string;
            } | null;
        };
        /** @description A manifest recovered by fingerprint: it belongs to a similar signed image and is NOT bound to the bytes sent (bound_to_file false). */
        RecoveredManifest: {
            manifest_id?: string;
            /** Format: uri */
            manifest_url?: string;
            /**
             * Format: uri
             * @description a small JPEG of the signed image, for side-by-side comparison
             */
            thumbnail_url?: string;
            /** @enum {string} */
            recovered_by?: "fingerprint";
            /** @enum {boolean} */
            bound_to_file?: false;
            note?: string;
            /** @description Hamming distance between the ISCC Image-Codes */
            distance?: number;
            similarity_score?: number;
            /** @enum {string} */
            alg?: "io.iscc.v0";
            /** @description the signed image's ISCC Image-Code */
            fingerprint?: string;
            manifest?: {
                [key: string]: unknown;
            } | null;
            signer?: {
                [key: string]: unknown;
            } | null;
            /**
             * @description the stored manifest signature on its own, judged under the same trust as the verdict (signer.trust_source names who vouches for a trusted one); the hard binding (data hash of the original) cannot be checked without the original and is left out
             * @enum {string}
             */
            signature?: "trusted" | "valid" | "invalid";
            /** @description every code c2pa-rs gave the stored manifest, the hard-binding failure included */
            status?: {
                [key: string]: unknown;
            };
            revocation?: {
                [key: string]: unknown;
            };
            signed_sha256?: string;
            anchor?: {
                [key: string]: unknown;
            } | null;
        };
        Verification: {
            /**
             * @description c2pa-rs verdict under the trust in use (the service's roots, the trust lists, the operator's and, signed in, the organisation's anchors: signer.trust_source names who vouches); none = no manifest
             * @enum {string}
             */
            validation_state: "Trusted" | "Valid" | "Invalid" | "none";
            active_manifest: string | null;
            manifest: {
                title?: string | null;
                creator?: string | null;
                claim_generator?: string | null;
                /** @description 1 for a C2PA 1.x claim, 2 for a v2 claim */
                claim_version?: number | null;
                /** @description signing time from the RFC 3161 timestamp, when present (same as timestamp.time) */
                signed_at?: string | null;
                actions?: string[];
                ingredients?: {
                    [key: string]: unknown;
                }[];
                /** @description labels of the assertions c2pa-rs lists (not the hash and thumbnail assertions) */
                assertions?: string[];
                /** @description publisher name(s): dc:publisher of cawg.metadata, or of a CreativeWork assertion in files signed before */
                publisher?: string | null;
                /** @description copyright holder name(s): plus:CopyrightOwner of cawg.metadata, or CreativeWork copyrightHolder */
                copyright_holder?: string | null;
                copyright_notice?: string | null;
                /** @description entries of the cawg.training-mining (or C2PA 1.x c2pa.training-mining) assertion, e.g. {"cawg.ai_training": {"use": "notAllowed"}} */
                training_mining?: {
                    [key: string]: components["schemas"]["TrainingMiningEntry"];
                } | null;
                /** @description the claim thumbnail, when the manifest has one */
                thumbnail?: {
                    format: string;
                } | null;
            } | null;
            signer: {
                subject?: string;
                serial?: string;
                issuer?: string;
                /**
                 * @description who vouches for the signer: the C2PA Trust List, the interim trust list (legacy, frozen 2026-01-01; its anchors or its allowed end-entity certificates), the service's own CA, the operator's anchors (TRUST_ANCHORS_FILE), the operator's allowed end-entity certificates (TRUST_ALLOWED_FILE), the caller's organisation's own anchors (/org/trust-anchors; POST /v1/media/verify only); null when the signer is not trusted, including a signer that chains only to an anchor for timestamps (then Valid with signingCredential.untrusted)
                 * @enum {string|null}
                 */
                trust_source?: "c2pa_trust_list" | "interim_trust_list" | "service_ca" | "operator_anchor" | "operator_allowed" | "organisation_anchor" | null;
                /** @description the pinned version of the list named by trust_source (trust/lists/pins.json); null for other sources */
                trust_list_version?: string | null;
            } | null;
            status: {
                success?: string[];
                informational?: string[];
                failure?: string[];
            };
            /** @description The RFC 3161 timestamp (sigTst2) of the signature; null without one. The signing time is `time`, taken from the timestamp. With a validated and trusted timestamp the signing certificate is judged at that time, so a file stays Trusted after its certificate expires. */
            timestamp: {
                /**
                 * Format: date-time
                 * @description genTime of the timestamp token
                 */
                time: string | null;
                /** @description timeStamp.validated: the token stamps this signature and its TSA signature verifies */
                validated: boolean;
                /** @description the TSA certificate (EKU timeStamping) chains to a TSA anchor in use (the service's roots, the C2PA TSA Trust List, the interim anchors, TRUST_ANCHORS_FILE, TRUST_TSA_ANCHORS_FILE, signed in: the organisation's anchors), checked by the service itself from the token's certificates, for C2PA 1.x and 2.x claims, in every format; a timestamp the service could not check (its token unreadable) is never trusted */
                trusted: boolean;
                /**
                 * @description whose anchor the TSA's chain reaches, when the service checked it; null otherwise
                 * @enum {string|null}
                 */
                trust_source?: "c2pa_trust_list" | "interim_trust_list" | "service_ca" | "operator_anchor" | "organisation_anchor" | null;
                /** @description the timeStamp.* status codes c2pa-rs reported */
                codes: string[];
            } | null;
            /** @description The OCSP answer stapled in the signature (C2PA rVals.ocspVals): the signing certificate's revocation status as its CA's responder gave it when the file was signed, so a validator needs to ask no one; null when the signature carries none. The service staples one in every signature it makes; files from elsewhere are read the same way. Absent from permalinks kept before it was added. */
            ocsp?: {
                /**
                 * @description the signing certificate's status in the answer
                 * @enum {string}
                 */
                status: "good" | "revoked" | "unknown";
                /**
                 * Format: date-time
                 * @description when the responder signed the answer
                 */
                produced_at: string;
                /** Format: date-time */
                this_update: string;
                /** Format: date-time */
                next_update: string | null;
                /** Format: date-time */
                revoked_at: string | null;
                /** @description RFC 5280 reason name, when the answer gives one */
                revocation_reason: string | null;
                /**
                 * @description subject of the certificate that signed the answer (a delegated OCSP responder, or the CA itself)
                 * @example CN=Media Signing Service OCSP Responder,O=Media Signing Service
                 */
                responder: string;
                /** @description the answer checks here: signed by the signing certificate's issuer or a responder it delegated to (EKU OCSPSigning), and about that certificate */
                verified: boolean;
                /** @description c2pa-rs's signingCredential.ocsp.* codes for it (signingCredential.ocsp.notRevoked, ...revoked); c2pa-rs takes only an answer from a delegated responder */
                codes: string[];
            } | null;
            /** @description every failure code, with where it sits: the active manifest, or an ingredient (an ingredient's failure can make the file Invalid while status.failure shows only the signer's trust); absent from permalinks kept before it was added */
            failures?: {
                code: string;
                explanation: string | null;
                /** @enum {string} */
                in: "manifest" | "ingredient";
                /** @description the ingredient's title, for a failure in an ingredient */
                ingredient: string | null;
                /** @description the JUMBF URI c2pa-rs names */
                url: string | null;
            }[];
            /** @description why the file has its state, in one line, naming the deciding failures and where they sit */
            summary?: string;
            /** @description where the manifest was read from; null without one */
            manifest_source?: {
                /** @enum {string} */
                kind: "embedded" | "sidecar" | "remote";
                /** @description the remote manifest URL the file names (XMP dcterms:provenance) */
                url: string | null;
                /** @description whether the manifest's hard binding was checked against the file (false for a store sent alone, or a remote manifest not fetched) */
                asset_checked: boolean;
                /** @description why a remote manifest was not fetched (REMOTE_MANIFESTS=off, a URL the guard refuses, a failed fetch): the verdict is then Invalid with manifest.inaccessible */
                error?: string;
            } | null;
            /** @description the people the active manifest names (CAWG identity assertions), judged under CAWG trust (the service identity CA, CAWG_TRUST_ANCHORS_FILE and, signed in, the organisation anchors); absent from permalinks kept before it was added */
            identities?: {
                /** @description the assertion, e.g. cawg.identity */
                label: string;
                /** @description cawg.x509.cose (an X.509 identity certificate) or cawg.identity_claims_aggregation (ICA) */
                sig_type: string | null;
                /** @description the person: the certificate's CN, or the first identity an ICA credential attests */
                name: string | null;
                /** @description the certificate's O */
                organisation: string | null;
                /** @description for an X.509 identity (cawg.x509.cose): the e-mail address in its certificate's subjectAltName, read by the service from the certificate in the identity assertion's own signature, whoever issued it (c2pa-rs does not report it); null for ICA, without one, or when that signature cannot be read */
                email: string | null;
                /** @description CAWG roles, e.g. cawg.creator */
                roles: string[];
                /** @description who vouches for the identity: for an X.509 identity, its certificate's issuer name (RFC 4514, e.g. CN=Newsroom Issuing CA,O=Newsroom CA,C=GB), read as the e-mail address is, whoever issued it (c2pa-rs does not report the issuer); for ICA, the credential's issuer; null when neither can be read */
                issuer: string | null;
                serial: string | null;
                /**
                 * @description from c2pa-rs: untrusted when only cawg.*.credential.untrusted fails (no CAWG anchor vouches), invalid on any other failure
                 * @enum {string}
                 */
                verdict: "trusted" | "untrusted" | "invalid";
                /** @description c2pa-rs's cawg.* codes for this assertion */
                codes: {
                    success: string[];
                    informational: string[];
                    failure: string[];
                };
                /**
                 * @description service_ca: the service's identity CA issued it; organisation_anchor: an organisation's external CA issued it and, signed in, the organisation's trust anchors vouch for it; cawg_anchor: CAWG_TRUST_ANCHORS_FILE (or, for identity certificates the service does not know, the organisation's anchors); null when untrusted
                 * @enum {string|null}
                 */
                trust_source: "service_ca" | "cawg_anchor" | "organisation_anchor" | null;
            }[];
            revocation: {
                /** @enum {string} */
                status: "good" | "revoked" | "expired" | "not_issued_by_service" | "no_signer";
                /** Format: date-time */
                revoked_at?: string;
                reason?: string;
            };
            mime_type: string;
            sha256: string;
            anchor: components["schemas"]["AnchorVerification"];
        };
        /** @description A fragmented MP4 rendition's verdict: validation_state, status and failures are the rendition's as a whole (Invalid when any segment is); sha256 and anchor are the init segment's */
        RenditionVerification: components["schemas"]["Verification"] & {
            /** Format: date-time */
            checked_at: string;
            /** @description one verdict per media segment, in the order sent: assertion.bmffHash.match when it is one of the manifest's Merkle tree's segments, unchanged (proof and init hash checked as c2pa-rs's fromBlobFragment checks them); a changed segment is Invalid alone */
            fragments: {
                /** @description its place among the fragment parts sent, from 1 */
                index: number;
                filename: string;
                sha256: string;
                /**
                 * @description c2pa-rs verdict under the trust in use (the service's roots, the trust lists, the operator's and, signed in, the organisation's anchors: signer.trust_source names who vouches); none = no manifest
                 * @enum {string}
                 */
                validation_state: "Trusted" | "Valid" | "Invalid" | "none";
                summary: string;
                status: {
                    success?: string[];
                    informational?: string[];
                    failure?: string[];
                };
                /** @description every failure code, with where it sits: the active manifest, or an ingredient (an ingredient's failure can make the file Invalid while status.failure shows only the signer's trust); absent from permalinks kept before it was added */
                failures?: {
                    code: string;
                    explanation: string | null;
                    /** @enum {string} */
                    in: "manifest" | "ingredient";
                    /** @description the ingredient's title, for a failure in an ingredient */
                    ingredient: string | null;
                    /** @description the JUMBF URI c2pa-rs names */
                    url: string | null;
                }[];
            }[];
        };
        VerifyUrlInput: {
            /**
             * Format: uri
             * @description an https URL of the file to verify, fetched through the outbound guard (public addresses only, at most 3 redirects, 10 s and MAX_UPLOAD_BYTES)
             */
            url: string;
        };
        AnchorLookup: components["schemas"]["Anchor"] & {
            sha256: string;
        };
        ManifestTemplate: {
            /** Format: uuid */
            template_id: string;
            name: string;
            /** @description starts at 1; every update adds one */
            version: number;
            manifest: components["schemas"]["ManifestDefaults"];
            discoverable: boolean | null;
            soft_binding: boolean | null;
            /**
             * @description where files signed with it keep their manifest store; null: embedded
             * @enum {string|null}
             */
            manifest_placement: "embedded" | "remote" | null;
            identity: components["schemas"]["IdentityRequest"];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A manifest template's defaults: the sign request's manifest fields, with the same rules, except title and dateCreated (given per request). All optional. */
        ManifestDefaults: {
            /** @description the author, written as dc:creator in the cawg.metadata assertion */
            creator?: string;
            /** @description caption or description (dc:description in cawg.metadata) */
            description?: string;
            /** @description IPTC digital source type URL (http://cv.iptc.org/newscodes/digitalsourcetype/<code>) for the c2pa.created action; default http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture. Ignored when the upload already carries a manifest (then c2pa.opened with it as parent ingredient). */
            digitalSourceType?: string;
            publisher?: components["schemas"]["Party"];
            copyrightHolder?: components["schemas"]["Party"] & unknown;
            /** @description copyright notice (dc:rights in cawg.metadata), e.g. "© 2025 Daily Planet" */
            copyrightNotice?: string;
            trainingMining?: components["schemas"]["TrainingMining"];
            /** @description embed a claim thumbnail (c2pa.thumbnail.claim): a JPEG at most 512 px on its long side made by the service, of an image, of a frame of a video (taken by ffmpeg where the worker has it), of a PDF's first page (rendered by pdftoppm where the worker has it) or of an EPUB's cover image. Costs CPU per file (about 25 ms for a 12 MP JPEG, 0.2-0.5 s for a 1080p video); images over 40 megapixels, audio, Office and OpenDocument files, EPUBs without a cover, video without ffmpeg and PDFs without pdftoppm are signed without one. */
            thumbnail?: boolean;
        };
        /** @description the CAWG identity a sign request with this template signs with when it gives none; null: the organisation alone */
        IdentityRequest: {
            /**
             * @example [
             *       "cawg.creator"
             *     ]
             */
            roles: ("cawg.creator" | "cawg.contributor" | "cawg.editor" | "cawg.producer" | "cawg.publisher" | "cawg.sponsor" | "cawg.translator")[];
        } | null;
        ManifestTemplateInput: {
            /** @description unique among the organisation's templates */
            name: string;
            manifest: components["schemas"]["ManifestDefaults"];
            /** @description whether files signed with it are discoverable in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); null or absent follows the organisation (GET/PATCH /org) */
            discoverable?: boolean | null;
            /** @description whether images signed with it get a soft binding (ISCC fingerprint assertion and index row); null or absent follows the organisation (GET/PATCH /org) */
            soft_binding?: boolean | null;
            /**
             * @description where files signed with it keep their manifest store: "embedded" in the file, or "remote": kept in the public manifest repository (GET /v1/manifests/{id}) and named by the file (XMP dcterms:provenance) and by its download's Link header (a sign request may choose otherwise); null or absent: embedded
             * @enum {string|null}
             */
            manifest_placement?: "embedded" | "remote" | null;
            /** @description sign as the person too, with these CAWG roles, when a sign request with this template gives no identity of its own (the request's replaces it): the same rules as the sign request's identity (400 for a role outside the CAWG vocabulary; at signing, 422 no_identity for an API key bound to no user, 409 identity_certificate_missing, 422 identity_not_supported for video and audio signed streamed). null or absent: the organisation alone */
            identity?: {
                /**
                 * @example [
                 *       "cawg.creator"
                 *     ]
                 */
                roles: ("cawg.creator" | "cawg.contributor" | "cawg.editor" | "cawg.producer" | "cawg.publisher" | "cawg.sponsor" | "cawg.translator")[];
            } | null;
        };
        ManifestTemplateVersion: {
            /** Format: uuid */
            template_id: string;
            version: number;
            /** @description the name the template had at this version */
            name: string;
            manifest: components["schemas"]["ManifestDefaults"];
            /**
             * Format: date-time
             * @description when this version was saved
             */
            created_at: string;
            current_version: number;
            deleted: boolean;
        };
        SoftBindingQueryResult: {
            matches: {
                /** @description fetch it with GET /v1/manifests/{manifestId} */
                manifestId: string;
                similarityScore?: number;
            }[];
        };
        ExternalCertificateRequestInput: {
            /** @description common name */
            CN: string;
            /** @description organisation */
            O: string;
            /**
             * @description country, two letters
             * @example GB
             */
            C: string;
            /** @description organisational unit */
            OU?: string;
            /** @description locality */
            L?: string;
            /** @description state or province */
            ST?: string;
        };
        SigningCertificate: {
            /**
             * @description lowercase hex
             * @example 3f2a9c0d4e5b6a7f8091a2b3c4d5e6f7
             */
            serial: string;
            /** @example CN=Daily Planet,O=Daily Planet */
            subject: string;
            issuer: string;
            /** Format: date-time */
            not_before: string;
            /** Format: date-time */
            not_after: string;
            /** @description SHA-256 of the DER certificate, lowercase hex */
            fingerprint_sha256: string;
            /** @description the leaf certificate, PEM */
            certificate_pem: string;
            /** @description leaf then sub-CA, PEM */
            chain_pem: string;
            /** @description leaf, then sub-CA */
            chain: components["schemas"]["TrustCertificate"][];
            root: components["schemas"]["TrustCertificate"] & unknown;
            /**
             * @description service_ca: the service's own CA (for private deployments: validators trust it only when given its root); external_ca: a CA the organisation chose, e.g. one on the C2PA Trust List
             * @enum {string}
             */
            source: "service_ca" | "external_ca";
            /** @example service CA, for private deployments */
            issued_by: string;
            expires_in_days: number;
            /** @description set from 30 days before expiry */
            expiry_warning: string | null;
        };
        TrustCertificate: {
            /** @enum {string} */
            role: "root" | "sub_ca" | "leaf" | "tsa";
            serial: string;
            subject: string;
            issuer: string;
            /** Format: date-time */
            not_before: string;
            /** Format: date-time */
            not_after: string;
            fingerprint_sha256: string;
            pem: string;
        };
        Health: {
            /** @enum {string} */
            status: "ok" | "degraded";
            /** @enum {string} */
            database: "ok" | "unreachable";
            /** @enum {string} */
            redis: "ok" | "unreachable";
        };
        Readiness: {
            /** @enum {string} */
            status: "ready" | "not_ready";
            failing: ("database" | "redis" | "storage" | "vault" | "signing_certificate")[];
            /** @description Each part: 'ok', 'not used' (Redis with the in-process queue), 'missing' (no valid signing certificate), 'not checked' (the vault, when there is no certificate to find its key) or what failed */
            checks: {
                database: string;
                redis: string;
                storage: string;
                vault: string;
                signing_certificate: string;
            };
            /** @description Present only when something is wrong with the trust lists verification uses, without failing readiness (signing does not need them): the lists past their next update, or why they cannot be loaded (a file that differs from its pin, an unreadable TRUST_ANCHORS_FILE): verification then answers 503 trust_lists_unavailable until they are mended */
            trust_lists?: {
                past_next_update: string[];
            } | {
                /** @enum {string} */
                code: "trust_lists_unavailable";
                error: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
