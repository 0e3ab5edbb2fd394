import adjustedLate from "./adjusted-late.ts";
import adjustments from "./adjustments.ts";
import cluster from "./cluster.ts";
import duplicates from "./duplicates.ts";
import golden from "./golden.ts";
import heldBack from "./held-back.ts";
import missingCreate from "./missing-create.ts";
import moneyEdges from "./money-edges.ts";
import novaBoth from "./nova-both.ts";
import outage from "./outage.ts";
import preExisting from "./pre-existing.ts";
import pricing from "./pricing.ts";
import reconciled from "./reconciled.ts";
import refusedShapes from "./refused-shapes.ts";
import reordering from "./reordering.ts";
import volumeCopies from "./volume-copies.ts";

/** Every declared scenario, in the order `bun scenario list` shows them. */
export const scenarios = [
  golden,
  duplicates,
  reordering,
  preExisting,
  missingCreate,
  refusedShapes,
  novaBoth,
  heldBack,
  adjustments,
  adjustedLate,
  pricing,
  moneyEdges,
  reconciled,
  volumeCopies,
  outage,
  cluster,
];
