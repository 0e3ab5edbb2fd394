-- Plans (issue 34, decision 467): a statement's tier lines and minimums, and a credit note's deltas of
-- them, held beside the statement as its buckets and related costs are; null where no plan put a line.
ALTER TABLE "statements" ADD COLUMN "plan" jsonb;
--> statement-breakpoint
ALTER TABLE "credit_notes" ADD COLUMN "plan" jsonb;
