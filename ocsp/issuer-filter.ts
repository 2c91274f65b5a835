/**
 * The first source (Boulder's filterSource): finds the CA a request asks about and refuses what the responder
 * does not answer. The issuer is found by issuerKeyHash (spec rule 1) under SHA-1 (what c2pa-rs and OpenSSL
 * send), SHA-256, SHA-384 or SHA-512, with issuerNameHash checked too. A CertID of a CA not in the list ->
 * unauthorized; so is a request whose CertIDs belong to different CAs (one response carries one signature, and
 * only the issuing CA's key is accepted by clients for its certificates). More than `maxCertIdsPerRequest`
 * CertIDs -> malformedRequest.
 */
import { createHash } from 'node:crypto';
import { bytesEqual, toHex } from '../shared/pki/der.js';
import { OCSP_HASH_ALGORITHMS, certificateNameAndKey, type OcspCertId, type OcspHashAlgorithm, type OcspRequestInfo } from '../shared/pki/ocsp-request.js';
import { ocspResponderKeyHash } from '../shared/pki/ocsp-response.js';
import { samePublicKey } from '../shared/pki/tbs-signer.js';
import { OcspRefusedError, positiveOption, type MatchedIssuer, type OcspIssuer, type OcspServed, type OcspSource } from './source.js';

export interface IssuerFilterOptions<I extends OcspIssuer> {
  issuers: readonly I[];
  /** CertIDs accepted in one request; more -> malformedRequest. Default 20. */
  maxCertIdsPerRequest?: number;
}

interface IssuerRecord<I extends OcspIssuer> extends MatchedIssuer<I> {
  /** issuerNameHash per hash algorithm. */
  nameHashes: Record<OcspHashAlgorithm, Uint8Array>;
}

const HASHES = Object.keys(OCSP_HASH_ALGORITHMS) as OcspHashAlgorithm[];

export class IssuerFilter<I extends OcspIssuer> {
  private readonly byKeyHash = new Map<string, IssuerRecord<I>[]>();
  private readonly maxCertIds: number;

  /** Refuses a vault key that does not hold its certificate's public key. */
  constructor(options: IssuerFilterOptions<I>, private readonly next: OcspSource<I>) {
    if (options.issuers.length === 0) throw new RangeError('OcspResponder: no issuers');
    for (const issuer of options.issuers) {
      const { subject, publicKeyBits, spki } = certificateNameAndKey(issuer.certificate);
      if (!samePublicKey(spki, issuer.key.publicKeySpki)) {
        throw new Error(`OcspResponder: vault key "${issuer.key.name}" does not hold the public key of its issuer certificate`);
      }
      if (issuer.responder && !samePublicKey(certificateNameAndKey(issuer.responder.certificate).spki, issuer.responder.key.publicKeySpki)) {
        throw new Error(`OcspResponder: vault key "${issuer.responder.key.name}" does not hold the public key of its responder certificate`);
      }
      const nameHashes = {} as Record<OcspHashAlgorithm, Uint8Array>;
      const signingKey = issuer.responder?.key ?? issuer.key;
      const record: IssuerRecord<I> = { issuer, nameHashes, responderKeyHash: ocspResponderKeyHash(signingKey.publicKeySpki) };
      for (const alg of HASHES) {
        nameHashes[alg] = new Uint8Array(createHash(alg).update(subject).digest());
        const keyHash = `${alg}:${createHash(alg).update(publicKeyBits).digest('hex')}`;
        const list = this.byKeyHash.get(keyHash) ?? [];
        list.push(record);
        this.byKeyHash.set(keyHash, list);
      }
    }
    this.maxCertIds = positiveOption('maxCertIdsPerRequest', options.maxCertIdsPerRequest, 20);
  }

  answer(request: OcspRequestInfo): Promise<OcspServed> {
    if (request.certIds.length > this.maxCertIds) return Promise.reject(new OcspRefusedError('malformedRequest', 'too many CertIDs'));
    let issuer: IssuerRecord<I> | undefined;
    for (const certId of request.certIds) {
      const record = this.find(certId);
      if (!record || (issuer !== undefined && record !== issuer)) return Promise.reject(new OcspRefusedError('unauthorized', 'not a CA of this responder, or CertIDs of several CAs'));
      issuer = record;
    }
    return this.next.answer({ issuer: issuer!, certIds: request.certIds, nonce: request.nonce });
  }

  private find(certId: OcspCertId): IssuerRecord<I> | undefined {
    const alg = certId.hashAlgorithm;
    if (!alg) return undefined;
    return this.byKeyHash.get(`${alg}:${toHex(certId.issuerKeyHash)}`)?.find((r) => bytesEqual(r.nameHashes[alg], certId.issuerNameHash));
  }
}
