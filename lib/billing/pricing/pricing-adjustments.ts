import type { FieldError } from "../../foundation/errors/svc-error.ts";

/**
 * The rules of a relation's `metadata.pricing_adjustments` (docs/reporting-api.md#pricing-adjustments), in one
 * place: the registry refuses a relation that breaks them and the engine fails a statement that reaches
 * a stored array breaking them, so the two can never disagree about what an adjustment is.
 */
export const adjustmentTypes = ["discount", "kickback", "surcharge", "project_discount"] as const;
export type AdjustmentType = (typeof adjustmentTypes)[number];

const minAdjustments = 1;
export const maxAdjustments = 64;
export const maxDescriptionLength = 500;
export const ratePattern = /^0(\.\d{1,6})?$|^1(\.0{1,6})?$/;
export const scopePattern = /^all$|^[a-z0-9_]+(\.[a-z0-9_]+)?$/;

/** One element as stored: the rate stays a decimal string until the engine reads it. */
export interface PricingAdjustment {
  type: AdjustmentType;
  rate: string;
  scope: string;
  description?: string;
}

const members = ["type", "rate", "scope", "description"];

function elementErrors(element: unknown, at: string): FieldError[] {
  if (typeof element !== "object" || element === null || Array.isArray(element)) {
    return [{ loc: at, msg: "must be an object with type, rate, scope and an optional description" }];
  }
  const e = element as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(e)) {
    if (!members.includes(key)) errors.push({ loc: `${at}.${key}`, msg: "is not an adjustment member" });
  }
  const { type, rate, scope, description } = e;
  if (type === undefined) errors.push({ loc: `${at}.type`, msg: "is required" });
  else if (typeof type !== "string" || !(adjustmentTypes as readonly string[]).includes(type))
    errors.push({ loc: `${at}.type`, msg: `must be one of ${adjustmentTypes.join(", ")}` });
  if (rate === undefined) errors.push({ loc: `${at}.rate`, msg: "is required" });
  else if (typeof rate !== "string" || !ratePattern.test(rate))
    errors.push({ loc: `${at}.rate`, msg: "must be a decimal string from 0 to 1 with at most 6 places" });
  if (scope === undefined) errors.push({ loc: `${at}.scope`, msg: "is required" });
  else if (typeof scope !== "string" || !scopePattern.test(scope))
    errors.push({ loc: `${at}.scope`, msg: "must be all, <platform> or <platform>.<resource_type>" });
  if (description !== undefined) {
    if (typeof description !== "string") errors.push({ loc: `${at}.description`, msg: "must be a string" });
    else if ([...description].length > maxDescriptionLength)
      errors.push({ loc: `${at}.description`, msg: `must be at most ${maxDescriptionLength} characters` });
  }
  return errors;
}

/**
 * Every violation of a `pricing_adjustments` value, located under `at`
 * (`body.metadata.pricing_adjustments`): array-level refusals at `at`, one error per broken rule of an
 * element at `<at>.<index>.<member>`. An array longer than 64 is one violation naming its length, and
 * its elements are not read.
 */
export function pricingAdjustmentErrors(value: unknown, at: string): FieldError[] {
  if (!Array.isArray(value)) {
    return [{ loc: at, msg: `must be an array of ${minAdjustments} to ${maxAdjustments} adjustments` }];
  }
  if (value.length < minAdjustments)
    return [{ loc: at, msg: `must hold at least ${minAdjustments} adjustment` }];
  if (value.length > maxAdjustments) {
    return [{ loc: at, msg: `holds ${value.length} adjustments; at most ${maxAdjustments} are allowed` }];
  }
  return value.flatMap((element, index) => elementErrors(element, `${at}.${index}`));
}
