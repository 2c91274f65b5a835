/** The spec's three roles. */
export const ROLES = ['admin', 'signer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The one table of who may do what (spec, "Roles"). Routes ask for a permission, never for a role,
 * and /docs renders this table, so the documentation cannot drift from what is enforced.
 * API keys act as `signer` inside their organisation.
 */
export const PERMISSIONS = {
  'media:upload': { roles: ['admin', 'signer'], apiKeys: true, description: 'upload files' },
  'media:sign': { roles: ['admin', 'signer'], apiKeys: true, description: 'sign uploaded files' },
  'media:read': { roles: ['admin', 'signer', 'viewer'], apiKeys: true, description: 'read jobs, uploads and signed files' },
  'media:verify': { roles: ['admin', 'signer', 'viewer'], apiKeys: true, description: 'verify files' },
  'org:users': { roles: ['admin'], apiKeys: false, description: 'manage organisation users' },
  'org:api-keys': { roles: ['admin'], apiKeys: false, description: 'manage API keys' },
  // Viewers may read templates: they already read every job's applied manifest, and a job names its template.
  'templates:read': { roles: ['admin', 'signer', 'viewer'], apiKeys: true, description: 'read manifest templates (and sign with them, with media:sign)' },
  'templates:manage': { roles: ['admin'], apiKeys: false, description: 'create, update and delete manifest templates' },
  'org:signing-certificate': { roles: ['admin'], apiKeys: false, description: "see and rotate the organisation's signing certificate" },
  'org:trust-anchors': { roles: ['admin'], apiKeys: false, description: "manage the organisation's own trust anchors (CAs its verifications trust)" },
  'org:settings': { roles: ['admin'], apiKeys: false, description: 'rename the organisation' },
  'org:webhooks': { roles: ['admin'], apiKeys: false, description: "manage the organisation's webhook endpoints and see their deliveries" },
  'org:audit': { roles: ['admin'], apiKeys: false, description: "read the organisation's audit events and their inclusion proofs" },
} as const satisfies Record<string, { roles: readonly Role[]; apiKeys: boolean; description: string }>;

export type Permission = keyof typeof PERMISSIONS;

/** The role API keys act with. */
export const API_KEY_ROLE: Role = 'signer';

export function roleAllows(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission].roles as readonly Role[]).includes(role);
}
