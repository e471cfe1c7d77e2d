import { connect } from "./db.js";
import { pendingRefunds, refundTotalPence } from "./refunds/pendingRefunds.js";
import { issueRefund } from "./refunds/issue.js";

const jobs: Record<string, () => Promise<void>> = {
  async refunds() {
    const db = connect();
    const due = await pendingRefunds(db);
    for (const order of due) {
      await issueRefund(db, order);
    }
    console.log(`refunded ${due.length} order(s), ${refundTotalPence(due)} pence in all`);
    await db.end();
  },
};

const name = process.argv[2] ?? "";
const job = jobs[name];
if (!job) {
  console.error(`unknown job "${name}": one of ${Object.keys(jobs).join(", ")}`);
  process.exit(2);
}
await job();
