import type { Decimal } from "../../foundation/money/decimal.ts";

/** What a project's resources of one platform and type cost: a statement's unit of apportionment. */
export interface Bucket {
  platform: string;
  resource_type: string;
  amount: Decimal;
}
