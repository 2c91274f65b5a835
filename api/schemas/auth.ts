import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { emailField, errors, json, nameField, noContent, passwordField, Role, userOnly, uuid, refusals } from './common.js';
import { personName } from './identity-certificates.js';
import { z } from './zod.js';

export const RegisterInput = z
  .object({ email: emailField, password: passwordField, org_name: nameField(200), name: personName.optional() })
  .openapi('RegisterInput');

export const LoginInput = z.object({ email: emailField, password: passwordField }).openapi('LoginInput');

export const RefreshInput = z.object({ refresh_token: z.string().min(1, 'is required') });

export const LogoutInput = z.object({
  refresh_token: z.string().min(1).optional(),
  all: z.boolean().optional().openapi({ default: false }),
});

const TokenPair = z
  .object({
    access_token: z.string().openapi({ description: 'JWT, HS256, expires after 15 minutes' }),
    refresh_token: z.string().openapi({ description: 'JWT, expires after 30 days, single use' }),
    token_type: z.enum(['bearer']),
    expires_in: z.number().int().openapi({ description: 'access token lifetime in seconds', example: 900 }),
  })
  .openapi('TokenPair');

const Me = z.object({ user_id: uuid, email: z.string(), name: z.string().nullable().openapi({ description: "the person's name (CN of their identity certificate); null until set" }), org_id: uuid, role: Role }).openapi('Me');

const tags = ['Authentication'];

export const authPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/auth/register',
    tags,
    summary: 'Register a user together with a new organisation; the user becomes its admin',
    description: "The organisation gets its own signing certificate (subject O and CN: its name), issued by the service's sub-CA.",
    request: { body: { required: true, content: { 'application/json': { schema: RegisterInput } } } },
    responses: {
      201: json(TokenPair, 'Token pair'),
      ...refusals(400, 409, 429),
      503: errors.authBusy,
    },
  },
  {
    method: 'post',
    path: '/auth/login',
    tags,
    summary: 'Sign in with e-mail and password',
    request: { body: { required: true, content: { 'application/json': { schema: LoginInput } } } },
    responses: {
      200: json(TokenPair, 'Token pair'),
      ...refusals(400, 401, 429),
      503: errors.authBusy,
    },
  },
  {
    method: 'post',
    path: '/auth/refresh',
    tags,
    summary: 'Exchange a refresh token for a new pair (single use; reuse signs the whole family out)',
    request: { body: { required: true, content: { 'application/json': { schema: RefreshInput } } } },
    responses: {
      200: json(TokenPair, 'New token pair'),
      ...refusals(400, 401, 429),
    },
  },
  {
    method: 'post',
    path: '/auth/logout',
    tags,
    summary: 'Sign out this session (or every session of the user)',
    description:
      "Revokes the refresh tokens of the session the access token belongs to; from then on that session's access tokens are refused (401) too, not only when they expire. `refresh_token` signs out that token's session as well (for access tokens issued before sessions were named); `all: true` signs out every session of the user. Answers 204.",
    security: userOnly,
    request: { body: { required: false, content: { 'application/json': { schema: LogoutInput } } } },
    responses: {
      204: noContent('Signed out'),
      ...refusals(400, 401, 403),
    },
  },
  {
    method: 'get',
    path: '/auth/me',
    tags,
    summary: 'The signed-in user',
    security: userOnly,
    responses: {
      200: json(Me, 'Identity'),
      ...refusals(401, 403),
    },
  },
];
