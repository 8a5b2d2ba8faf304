/**
 * Crypto-shredding (SPEC §7): deleting the keys a sealed value needs makes every copy of it
 * unreadable, in the log and on any topic alike.
 */
export interface KeyShredder {
  /** Shreds every data key of one record; answers how many went. */
  shredRecord(tenant: string, plugin: string, scope: string, key: string): Promise<number>;
  /**
   * Shreds a data subject's key and with it every data key it wraps, unless `anyLeft` (asked
   * while no put can seal anything new under that key) finds something of the subject's still
   * kept: then nothing is shredded and the answer is null. Otherwise answers how many keys went.
   */
  shredSubject(tenant: string, subject: string, anyLeft: () => Promise<boolean>): Promise<number | null>;
  /**
   * Shreds every key of a tenant (its records', its files', its agents' and its data subjects'):
   * nothing sealed for it can be opened again. Answers how many keys went (0 when none were left).
   */
  shredTenant(tenant: string): Promise<number>;
  /** Makes the deletions physical (no dead tuple keeps a key). */
  vacuum(): Promise<void>;
}
