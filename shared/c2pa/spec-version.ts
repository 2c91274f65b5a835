/**
 * The C2PA specification version the manifests declare (claim_generator_info[0].specVersion; C2PA_SPEC_VERSION).
 * 2.4, the default, is what the manifests are written to. 2.2 is for an operator taking the service through the
 * conformance program's spec 2.2 profile, whose `validation:mandatory_spec_version` trait asks for the version absent
 * or 2.2 (the 2.4 profile asks for it present and 2.4: no file passes both). The rest of what the service writes meets
 * both profiles (test/c2pa/asset-rubrics.test.ts). Its own module: the configuration reads it without loading the
 * manifest code.
 */
export const C2PA_SPEC_VERSIONS = ['2.4', '2.2'] as const;
export type C2paSpecVersion = (typeof C2PA_SPEC_VERSIONS)[number];
export const DEFAULT_C2PA_SPEC_VERSION: C2paSpecVersion = '2.4';
