// Benchmark peer: the official TypeScript SDK's client (StreamableHTTPClientTransport) calling
// `echo` on URL, N calls one at a time and then N with CONCURRENCY in flight; prints one JSON
// line {"sequential": calls/s, "concurrent": calls/s, "cpu_us": [seq, conc]} (this process's
// CPU per call; the server's is measured by its parent).
//
//     node tests/peers/ts_echo_client.mjs URL N CONCURRENCY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, nArg, concurrencyArg] = process.argv.slice(2);
const n = Number(nArg);
const concurrency = Number(concurrencyArg);

const client = new Client({ name: "ts-echo-client", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

async function call() {
  const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
  if (result.content[0].text !== "hello") throw new Error(`unexpected result ${JSON.stringify(result)}`);
}

async function measure(inFlight) {
  for (let i = 0; i < Math.min(20, n); i++) await call();
  if (inFlight > 1) await Promise.all(Array.from({ length: inFlight }, call));
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  let started = 0;
  async function worker() {
    while (started++ < n) await call();
  }
  await Promise.all(Array.from({ length: Math.max(1, inFlight) }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  return [n / seconds, (cpu.user + cpu.system) / n];
}

const [sequential, cpuSeq] = await measure(1);
const [concurrent, cpuConc] = await measure(concurrency);
await client.close();
console.log(JSON.stringify({ sequential, concurrent, cpu_us: [cpuSeq, cpuConc] }));
