import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

/**
 * Workflow histories as proto3 JSON (the format `temporal workflow show --output json` writes). The
 * SDK's own historyToJSON/historyFromJSON throw "type must be a Type" in this install, because
 * @temporalio/common carries a second copy of protobufjs; the JSON codec beside @temporalio/proto's
 * own protobufjs works on the same types.
 */
interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): History | null;
}

const protojson = require(require.resolve('protobufjs/ext/protojson', { paths: [require.resolve('@temporalio/proto')] })) as ProtoJson;
// The module itself is the protobufjs root (as a namespace import it would be a copy without its prototype).
const root = patchProtobufRoot(require('@temporalio/proto')) as { lookupType(name: string): unknown };
const historyType = root.lookupType('temporal.api.history.v1.History');

export function historyToJson(history: History): unknown {
  return protojson.toJson(historyType, temporal.api.history.v1.History.fromObject(history));
}

export function historyFromJson(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a workflow history');
  return history;
}
