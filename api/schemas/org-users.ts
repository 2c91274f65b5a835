import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { dateTime, emailField, errors, json, noContent, passwordField, Role, userOnly, uuid, uuidField, refusals } from './common.js';
import { personName } from './identity-certificates.js';
import { z } from './zod.js';

export const NewOrgUser = z.object({ email: emailField, password: passwordField, role: Role, name: personName.optional() }).openapi('NewOrgUser');
export const OrgUserPatch = z.object({ role: Role });
export const OrgUserParams = z.object({ user_id: uuidField });

const OrgUser = z
  .object({ user_id: uuid, email: z.string(), name: z.string().nullable(), org_id: uuid, role: Role, created_at: dateTime })
  .openapi('OrgUser');

const tags = ['Organisation'];
const security = userOnly;

export const orgUsersPaths: RouteConfig[] = [
  {
    method: 'get',
    path: '/org/users',
    tags,
    summary: "List the users of the caller's organisation (admin)",
    security,
    responses: {
      200: json(z.object({ users: z.array(OrgUser) }), 'Users'),
      ...refusals(401, 403),
    },
  },
  {
    method: 'post',
    path: '/org/users',
    tags,
    summary: "Add a user with a role to the caller's organisation (admin)",
    security,
    request: { body: { required: true, content: { 'application/json': { schema: NewOrgUser } } } },
    responses: {
      201: json(OrgUser, 'Created user'),
      ...refusals(400, 401, 403, 409),
      503: errors.authBusy,
    },
  },
  {
    method: 'patch',
    path: '/org/users/{user_id}',
    tags,
    summary: "Change a user's role (admin); the last admin cannot be demoted",
    security,
    request: { params: OrgUserParams, body: { required: true, content: { 'application/json': { schema: OrgUserPatch } } } },
    responses: {
      200: json(OrgUser, 'Updated user'),
      ...refusals(400, 401, 403, 404, 409),
    },
  },
  {
    method: 'delete',
    path: '/org/users/{user_id}',
    tags,
    summary: 'Remove a user (admin); the last admin cannot be removed',
    description: "The user's identity certificates are revoked with them, in the same transaction (reason affiliationChanged): those the service CA issued are revoked in its records, so OCSP answers revoked at once, and leaf.crl lists them once the scheduler reissues it; those from the organisation's external CA are recorded revoked (the organisation still asks its CA to revoke them), and open requests to it are withdrawn. A sign job queued to sign as the user that has not run fails with identity_certificate_missing. API keys bound to the user go with them.",
    security,
    request: { params: OrgUserParams },
    responses: {
      204: noContent('Removed'),
      ...refusals(400, 401, 403, 404, 409),
    },
  },
];
