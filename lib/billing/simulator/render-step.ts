import type { JsonObject } from "../../foundation/json/json-value.ts";
import { encodeEnvelope } from "../oslo/envelope.ts";
import { osloVersion } from "../oslo/notification.ts";
import { cinderAttached, cinderSpec } from "./cinder-notification.ts";
import { glanceSpec } from "./glance-notification.ts";
import { type Spec, TextTemplate } from "./message-template.ts";
import type { ResourceType, SimResource, Tenant, Truth } from "./month.ts";
import { neutronSpec } from "./neutron-notification.ts";
import type { RenderInput } from "./notification-context.ts";
import { type NotificationLine, notificationTopic } from "./notification-line.ts";
import { novaSpec } from "./nova-notification.ts";
import { novaVersionedSpec, versionedTopic } from "./nova-versioned-notification.ts";
import { octaviaSpec } from "./octavia-notification.ts";
import { backupSpec, snapshotSpec } from "./volume-copy-notification.ts";

/**
 * The form a notification is rendered in: the legacy (unversioned) one every service sends, or nova's
 * versioned one (decision 287). Only instances have a versioned form.
 */
export type NotificationForm = "legacy" | "versioned";

/**
 * One service's notifications: the exchange it publishes on (cinder's volume notifications use
 * `platform_a`: docs/simulator.md#writing-a-month-to-files), the routing key, and the spec of each
 * variant. A variant is what decides the shape of a message (its members and their nesting), never its
 * values: `spec` reads only what `variant` does.
 */
interface Service {
  exchange: string;
  routingKey: string;
  variant: (input: RenderInput) => string;
  spec: (input: RenderInput) => Spec<RenderInput>;
}

const byEventType = (input: RenderInput) => input.step.event_type;

/** A service whose variant is the event type alone: what most services' messages need. */
const byEvent = (
  exchange: string,
  spec: (eventType: string) => Spec<RenderInput>,
  routingKey = notificationTopic,
): Service => ({ exchange, routingKey, variant: byEventType, spec: (i) => spec(i.step.event_type) });

const services: Readonly<Record<ResourceType, Service>> = {
  instance: byEvent("nova", novaSpec),
  volume: {
    exchange: "platform_a",
    routingKey: notificationTopic,
    variant: (i) => `${i.step.event_type}${cinderAttached(i) ? " attached" : ""}`,
    spec: (i) => cinderSpec(i.step.event_type, cinderAttached(i)),
  },
  volume_snapshot: byEvent("platform_a", snapshotSpec),
  volume_backup: byEvent("platform_a", backupSpec),
  floating_ip: byEvent("neutron", neutronSpec),
  image: byEvent("glance", glanceSpec),
  loadbalancer: byEvent("octavia", octaviaSpec),
};

/** nova's versioned notifications: the same exchange, a topic of their own. */
const novaVersioned = byEvent("nova", novaVersionedSpec, versionedTopic);

function serviceOf(input: RenderInput, form: NotificationForm): Service {
  return form === "versioned" && input.resource.resource_type === "instance"
    ? novaVersioned
    : services[input.resource.resource_type];
}

/** A variant's message compiled once: its holes, its line text, its object. */
interface Compiled {
  /** The whole line of `notifications.jsonl`, the message twice escaped inside it. */
  line: TextTemplate<RenderInput>;
}

const compiled = new Map<string, Compiled>();

function compiledFor(input: RenderInput, form: NotificationForm): Compiled {
  const service = serviceOf(input, form);
  const key = `${input.resource.resource_type} ${service.routingKey} ${service.variant(input)}`;
  let found = compiled.get(key);
  if (found === undefined) {
    // The line is {"exchange":…,"routing_key":…,"body":"<envelope escaped>"} with the envelope
    // {"oslo.version":"2.0","oslo.message":"<message escaped>"}: the message sits three levels deep.
    const head = `{"exchange":${JSON.stringify(service.exchange)},"routing_key":${JSON.stringify(service.routingKey)},"body":"`;
    const envelopeHead = JSON.stringify({ "oslo.version": osloVersion, "oslo.message": "" }).slice(0, -2);
    found = {
      line: new TextTemplate(service.spec(input), 3, {
        prefix: head + JSON.stringify(envelopeHead).slice(1, -1),
        suffix: `${JSON.stringify('"}').slice(1, -1)}"}`,
      }),
    };
    compiled.set(key, found);
  }
  return found;
}

/** The inner oslo message of one step, as its service would send it in `form`. */
export function renderMessage(input: RenderInput, form: NotificationForm = "legacy"): JsonObject {
  const { line } = compiledFor(input, form);
  return line.object(line.values(input)) as JsonObject;
}

/** The exchange the step's service publishes on. */
export function exchangeOf(input: RenderInput): string {
  return services[input.resource.resource_type].exchange;
}

/** The published line of one step: exchange, routing key and the oslo envelope of its message. */
export function renderLine(input: RenderInput, form: NotificationForm = "legacy"): NotificationLine {
  const service = serviceOf(input, form);
  return {
    exchange: service.exchange,
    routing_key: service.routingKey,
    body: encodeEnvelope(renderMessage(input, form)),
  };
}

/**
 * One step rendered for a file: its line in `notifications.jsonl` as UTF-8 (valid until the next
 * rendering, decision 250) and its message as an object (for the mapping), from one evaluation of the
 * holes (decision 248).
 */
export function renderForFile(
  input: RenderInput,
  form: NotificationForm = "legacy",
): { line: Uint8Array; message: JsonObject } {
  const { line } = compiledFor(input, form);
  const values = line.values(input);
  return { line: line.utf8(values), message: line.object(values) as JsonObject };
}

/**
 * What each step of a resource needs to be rendered, in order. Messages are rendered only when a line
 * is written, so a month of millions of notifications is never held as text.
 */
export function stepInputs(resource: SimResource, tenants: ReadonlyMap<string, Tenant>): RenderInput[] {
  const first = resource.steps.find((s) => s.billable && s.truth !== null);
  if (first?.truth == null) return [];
  const created = { at: first.at, truth: first.truth };
  let last: Truth = first.truth;
  return resource.steps.map((step) => {
    const truth = step.truth ?? last;
    last = truth;
    const tenant = tenants.get(truth.project_id);
    if (tenant === undefined) throw new RangeError(`no tenant ${truth.project_id}`);
    return { resource, step, truth, created, tenant };
  });
}
