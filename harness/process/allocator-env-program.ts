// A program for allocator-env.test.ts: prints its allocator setting and its arguments, then exits with
// the status its first argument names, or waits for a signal when that is `wait`.
import { withAllocatorEnv } from "../../lib/foundation/process/allocator-env.ts";

await withAllocatorEnv();
const [status] = process.argv.slice(2);
console.log(JSON.stringify({ delay: process.env.MIMALLOC_PURGE_DELAY, args: process.argv.slice(2) }));
if (status === "wait") setInterval(() => {}, 1_000);
else process.exit(Number(status));
