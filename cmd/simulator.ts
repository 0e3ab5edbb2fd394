import { notBuilt } from "../lib/cli/not-built.ts";

notBuilt("simulator");
