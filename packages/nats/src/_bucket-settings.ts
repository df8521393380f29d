// The settings of a team's bucket's stream, fixed and compared: made once by the team's operator
// (`muster nats init`; members may not make or change it), and refused when an existing stream
// differs — a bucket made first by somebody else with a 4 s age or rollups allowed is not the
// team's. No rollup (one message with `Nats-Rollup: all` would empty the team), no purge and no
// message delete through the API; a delete of a key is a delete marker, which these allow.
import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";

/**
 * No value in a team's bucket is larger (bytes): a record, a claim, a card, a lease, a message. A
 * 64 KiB body is at most 384 KiB as JSON (every control character escaped to six), so 512 KiB.
 */
export const MAX_VALUE_BYTES = 512 * 1024;
/** A team's bucket holds at most this much (bytes): a flood fills it, not the server's disk. */
export const MAX_BUCKET_BYTES = 128 * 1024 * 1024;

/** The stream under the bucket `name`, as the team's operator makes it. */
export function bucketStreamConfig(
  name: string,
  replicas: number,
): Partial<StreamConfig> & { name: string } {
  return {
    name: `KV_${name}`,
    subjects: [`$KV.${name}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    num_replicas: replicas,
    max_msgs_per_subject: 1,
    max_msgs: -1,
    max_age: 0,
    max_bytes: MAX_BUCKET_BYTES,
    max_msg_size: MAX_VALUE_BYTES,
    // Every read by key goes to the stream's leader. A direct get may be answered by any replica,
    // and one catching up after a restart answers with what it has: a join that reads back the
    // claim it just wrote then saw another and gave up a label it held (the R3 storm, at load).
    allow_direct: false,
    allow_rollup_hdrs: false,
    deny_delete: true,
    deny_purge: true,
  };
}

/** The settings compared (what a server answers may hold more, defaults filled in). */
const COMPARED = [
  "subjects",
  "retention",
  "storage",
  "discard",
  "max_msgs_per_subject",
  "max_msgs",
  "max_age",
  "max_bytes",
  "max_msg_size",
  "allow_direct",
  "allow_rollup_hdrs",
  "deny_delete",
  "deny_purge",
] as const;

/**
 * How an existing stream's settings differ from the team's (`setting is X, not Y`), or none.
 * Replicas are compared only when the caller says how many it expects; a mirror, sources or a
 * seal make it no team bucket at all.
 */
export function bucketDifferences(
  actual: Partial<StreamConfig>,
  expected: Partial<StreamConfig>,
  replicasExpected: boolean,
): string[] {
  const differences: string[] = [];
  const shown = (value: unknown) => JSON.stringify(value ?? null);
  for (const field of COMPARED) {
    const have =
      actual[field] ??
      (field.startsWith("allow_") || field.startsWith("deny_") ? false : undefined);
    if (shown(have) !== shown(expected[field]))
      differences.push(`${field} is ${shown(have)}, not ${shown(expected[field])}`);
  }
  if (replicasExpected && actual.num_replicas !== expected.num_replicas)
    differences.push(`num_replicas is ${actual.num_replicas}, not ${expected.num_replicas}`);
  if (actual.mirror) differences.push("it is a mirror");
  if (actual.sources?.length) differences.push("it has sources");
  if (actual.sealed) differences.push("it is sealed");
  return differences;
}

/** What a member is told when the bucket is missing or not as the team's operator makes it. */
export const BUCKET_FIX =
  "the team's operator runs: muster nats init (with the operator's credentials, MUSTER_NATS_CREDS)";
