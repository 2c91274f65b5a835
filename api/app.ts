import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { createPassport } from './auth/authenticate.js';
import { PasswordPool, passwordPoolOptions } from './auth/password-pool.js';
import type { AppContext } from './context.js';
import { docsRouter } from './docs.js';
import { errorHandler, routeNotFound } from './errors.js';
import { createRateLimiters } from './rate-limit.js';
import { apiKeysRouter } from './routes/api-keys.js';
import { organisationTrustAnchorsRouter } from './routes/organisation-trust-anchors.js';
import { manifestTemplatesRouter } from './routes/manifest-templates.js';
import { orgSigningCertificateRouter } from './routes/org-signing-certificate.js';
import { organisationRouter } from './routes/organisation.js';
import { authRouter } from './routes/auth.js';
import { healthRouter } from './routes/health.js';
import { orgUsersRouter } from './routes/org-users.js';
import { signJobsRouter } from './routes/sign-jobs.js';
import { uploadsRouter } from './routes/uploads.js';
import { resumableUploadsRouter } from './routes/resumable-uploads.js';
import { verifyRouter } from './routes/verify.js';
import { anchorsRouter } from './routes/anchors.js';
import { certificatesRouter } from './routes/certificates.js';
import { manifestRepositoryRouter } from './routes/manifest-repository.js';
import { publicVerifyRouter } from './routes/public-verify.js';
import { webAppRouter } from './web-app.js';
import { webhooksRouter } from './routes/webhooks.js';
import { auditRouters } from './routes/audit.js';
import { identityCertificatesRouter } from './routes/identity-certificates.js';
import { rejectUnsafeText } from './validation.js';
import { createResumableStore, UploadStaging } from '../shared/storage/index.js';
import { createPkiEvents } from '../shared/pki/pki-events.js';
import { RemoteManifests } from './media/remote-manifest.js';
import { VerifyPool, verifyPoolOptions } from './media/verify-pool.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * `verifyPool`, `uploadCheckPool`, `passwords`: the caller's, which it closes when it stops the API (startApi does);
 * without them the app starts its own, whose idle processes and threads end on their own after a minute. Without
 * `pkiEvents` it publishes through its own (createPkiEvents: it never listens, so there is nothing to close).
 */
export type AppDeps = Omit<AppContext, 'passport' | 'staging' | 'resumable' | 'verifyPool' | 'uploadCheckPool' | 'remoteManifests' | 'passwords' | 'pkiEvents'> &
  Partial<Pick<AppContext, 'verifyPool' | 'uploadCheckPool' | 'passwords' | 'pkiEvents'>>;

export function createApp(deps: AppDeps): Express {
  const ctx: AppContext = {
    ...deps,
    staging: new UploadStaging(deps.config.dataDir),
    resumable: createResumableStore(deps.config),
    passport: createPassport(deps.config.jwtSecret),
    verifyPool: deps.verifyPool ?? new VerifyPool(verifyPoolOptions(deps.config, 'verify', deps.logger)),
    uploadCheckPool: deps.uploadCheckPool ?? new VerifyPool(verifyPoolOptions(deps.config, 'uploads', deps.logger)),
    remoteManifests: new RemoteManifests(deps.config.remoteManifests),
    passwords: deps.passwords ?? new PasswordPool(passwordPoolOptions(deps.config)),
    pkiEvents: deps.pkiEvents ?? createPkiEvents(deps.config, deps.knex, deps.logger),
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxyHops);
  app.use(
    pinoHttp({
      logger: ctx.logger,
      // Reuse a caller's request id (e.g. from a load balancer) when it is sane, so logs join up.
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        // Method and URL only: headers carry credentials, and no credential is ever put in a URL.
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(helmet());
  app.use(express.json({ limit: '100kb' }));
  app.use(rejectUnsafeText);

  app.use(healthRouter(ctx));
  app.use(docsRouter(ctx.config));
  const limiters = createRateLimiters(ctx.config);
  app.use(identityCertificatesRouter(ctx));
  app.use('/auth', authRouter(ctx, limiters));
  app.use('/org/users', orgUsersRouter(ctx));
  app.use('/org/api-keys', apiKeysRouter(ctx));
  app.use('/org/trust-anchors', organisationTrustAnchorsRouter(ctx));
  app.use('/org/webhooks', webhooksRouter(ctx));
  const audit = auditRouters(ctx);
  app.use('/org/audit-events', audit.org);
  app.use('/v1/audit', audit.public);
  app.use('/org/signing-certificate', orgSigningCertificateRouter(ctx));
  app.use('/org', organisationRouter(ctx));
  app.use('/v1/media', uploadsRouter(ctx), resumableUploadsRouter(ctx), signJobsRouter(ctx), verifyRouter(ctx));
  app.use('/v1/manifest-templates', manifestTemplatesRouter(ctx));
  app.use('/v1/media', anchorsRouter(ctx)); // public: anchor proofs by file SHA-256
  // Public, rate limited: verification with recovery, and the manifest repository (C2PA Soft Binding Resolution API).
  app.use('/v1', publicVerifyRouter(ctx, limiters), manifestRepositoryRouter(ctx, limiters));
  app.use(certificatesRouter(ctx));
  // The browser app (web/) at / and /app/, with its own stricter Content-Security-Policy.
  app.use(webAppRouter(ctx.config));

  app.use(routeNotFound);
  app.use(errorHandler);
  return app;
}
