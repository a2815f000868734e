// Tests multitouch.js under Node (20: run with --experimental-websocket; 22 and later have WebSocket)
// against a real multitouchd and `multitouchctl bridge`:
//
//   node --experimental-websocket clients/js/test_client.mjs BIN_DIR
//
// 1. A wrong token: the bridge refuses the handshake; MultitouchClient reports it as a `close` whose
//    reason names the token (Node 20's WebSocket fires only `error` there), and does not reconnect
//    when told not to.
// 2. Regions: declareRegions resolves with the `regions` reply; the replay's touches and gestures
//    arrive routed to the region (`region`, `role`), the region's matrix is kept apart from the
//    device's, a region transform is set and reset with {region}; updateRegions removes it.
// BIN_DIR holds multitouchd and multitouchctl. Prints one line per test and "N passed, N failed".
// No test waits on the clock to pass: each waits for an event, with a generous deadline only to fail.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { MultitouchClient, RequestError } from "./multitouch.js";

const here = dirname(fileURLToPath(import.meta.url));
const binDir = process.argv[2];
if (!binDir) {
  console.error("usage: node --experimental-websocket test_client.mjs BIN_DIR");
  process.exit(2);
}
if (typeof globalThis.WebSocket !== "function") {
  console.error("test_client.mjs: this Node has no WebSocket (Node 20: run with --experimental-websocket)");
  process.exit(2);
}

/** Resolves with the first `type` event's detail of `target`, rejects after `ms` (failure only). */
function next(target, type, ms = 30000, accept = () => true) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      target.removeEventListener(type, listener);
      reject(new Error(`no ${type} event within ${ms / 1000} s`));
    }, ms);
    const listener = (event) => {
      if (!accept(event.detail)) return;
      clearTimeout(timer);
      target.removeEventListener(type, listener);
      resolve(event.detail);
    };
    target.addEventListener(type, listener);
  });
}

function check(condition, what) {
  if (!condition) throw new Error(what);
}

/** A two-finger spread then a one-finger pan on a 100 x 60 mm touchscreen (evemu). */
function recording() {
  const header = [
    "# EVEMU 1.3", "N: multitouch.js test touchscreen", "I: 0018 0000 0000 0000", "P: 02 00 00 00 00 00 00 00",
    "B: 00 0b 00 00 00 00 00 00 00",
    ...Array.from({ length: 13 }, (_, i) => `B: 01 ${i === 5 ? "00 04" : "00 00"} 00 00 00 00 00 00`),
    "B: 02 00 00 00 00 00 00 00 00", "B: 03 03 00 00 00 00 80 60 02", "B: 04 00 00 00 00 00 00 00 00",
    "B: 05 00 00 00 00 00 00 00 00", "B: 11 00 00 00 00 00 00 00 00", "B: 12 00 00 00 00 00 00 00 00",
    "B: 14 00 00 00 00 00 00 00 00", "B: 15 00 00 00 00 00 00 00 00", "B: 15 00 00 00 00 00 00 00 00",
    "A: 00 0 1000 0 0 10", "A: 01 0 600 0 0 10", "A: 2f 0 9 0 0 0", "A: 35 0 1000 0 0 10", "A: 36 0 600 0 0 10",
    "A: 39 0 65535 0 0 0",
  ];
  const lines = [];
  let t = 1.0;
  const ev = (type, code, value) => lines.push(`E: ${t.toFixed(6)} ${type.toString(16).padStart(4, "0")} ${code.toString(16).padStart(4, "0")} ${value}`);
  const syn = () => { ev(0, 0, 0); t += 0.01; };
  ev(3, 0x2f, 0); ev(3, 0x39, 1); ev(3, 0x35, 400); ev(3, 0x36, 300); ev(1, 0x14a, 1);
  ev(3, 0x2f, 1); ev(3, 0x39, 2); ev(3, 0x35, 600); ev(3, 0x36, 300);
  syn();
  for (let i = 1; i <= 60; i++) {
    ev(3, 0x2f, 0); ev(3, 0x35, 400 - i);
    ev(3, 0x2f, 1); ev(3, 0x35, 600 + i);
    syn();
  }
  ev(3, 0x2f, 1); ev(3, 0x39, -1); syn();
  for (let i = 1; i <= 20; i++) { ev(3, 0x2f, 0); ev(3, 0x35, 340 + i * 5); syn(); }
  ev(3, 0x2f, 0); ev(3, 0x39, -1); ev(1, 0x14a, 0); syn();
  return header.join("\n") + "\n" + lines.join("\n") + "\n";
}

/** Starts a process; resolves once `ready(line)` accepts a line of its stdout (its value). */
function start(command, args, ready) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const log = [];
  child.stderr.on("data", (chunk) => log.push(chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const value = new Promise((resolve, reject) => {
    lines.on("line", (line) => {
      const got = ready(line);
      if (got) resolve(got);
    });
    child.on("exit", (code) => reject(new Error(`${command} exited (${code}) before it was ready: ${log.join("").slice(-800)}`)));
  });
  return { child, value, log };
}

async function withBridge(tmp, daemonArgs, body) {
  const socket = join(tmp, "mtd.sock");
  const daemon = spawn(join(binDir, "multitouchd"), ["--socket", socket, "--no-devices", ...daemonArgs], { stdio: "ignore" });
  let bridge = null;
  try {
    // The bridge connects to the daemon per browser; the socket must exist before the first one.
    for (let i = 0; i < 3000 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 10));
    check(existsSync(socket), "multitouchd made no socket");
    bridge = start(join(binDir, "multitouchctl"), ["bridge", "--listen", "127.0.0.1:0", "--socket", socket], (line) => {
      const match = line.match(/http:\/\/([^/\s]+)\/\S*\?token=([^\s&]+)/);
      return match ? { host: match[1], token: match[2] } : null;
    });
    const { host, token } = await bridge.value;
    await body({ host, token });
  } finally {
    if (bridge) bridge.child.kill("SIGTERM");
    daemon.kill("SIGTERM");
  }
}

async function testRefusedTokenIsReported(tmp) {
  await withBridge(tmp, [], async ({ host }) => {
    const client = new MultitouchClient(`ws://${host}/ws?token=wrong-token`, { reconnect: false });
    const closed = next(client, "close");
    let opened = false;
    client.addEventListener("open", () => { opened = true; });
    client.connect();
    const detail = await closed;
    check(!opened, "a refused WebSocket never opens");
    check(detail.code === 1006, `close code ${detail.code}`);
    check(/token/.test(detail.reason), `the reason names the token: ${detail.reason}`);
    check(detail.willReconnect === false, "reconnect: false is kept");
    check(!client.connected, "not connected after the refusal");
    // A request now is refused at once, not left pending.
    const refused = await client.ping().then(() => null, (e) => e);
    check(refused instanceof RequestError && refused.code === "not-connected", `ping after refusal: ${refused}`);
  });
}

async function testRegions(tmp) {
  const path = join(tmp, "spread.evemu");
  writeFileSync(path, recording());
  await withBridge(tmp, ["--replay", path, "--speed", "5", "--wait-for-subscribers", "1"], async ({ host, token }) => {
    const client = new MultitouchClient(`ws://${host}/ws?token=${token}`, { reconnect: false });
    const hello = next(client, "hello");
    client.connect();
    await hello;
    const device = [...client.devices.values()][0];
    check(device && device.width > 0, `the hello's device: ${JSON.stringify(device)}`);
    const reply = await client.declareRegions(device.id, [{ id: "whole", rect: [0, 0, device.width, device.height] }]);
    check(reply.type === "regions" && JSON.stringify(reply.regions) === '["whole"]', `regions reply ${JSON.stringify(reply)}`);
    check(client.regions.get(device.id)?.[0]?.id === "whole", "the client keeps its regions");
    const bad = await client.declareRegions(device.id, [{ id: "x" }]).then(() => null, (e) => e);
    check(bad instanceof RequestError && bad.code === "bad-field", `a region without a shape is refused: ${bad}`);
    check(client.regions.get(device.id)?.[0]?.id === "whole", "a refused declaration changes nothing");

    const transform = await client.setTransform(device.id, [2, 0, 0, 2, 0, 0], { region: "whole" });
    check(transform.region === "whole" && transform.matrix[0] === 2, `region transform ${JSON.stringify(transform)}`);
    check(JSON.stringify(client.regionMatrices.get(`${device.id}/whole`)) === "[2,0,0,2,0,0]", "region matrix kept");
    check(!client.matrices.has(device.id), "the region's transform is not the device's");
    const reset = await client.resetTransform(device.id, { region: "whole" });
    check(JSON.stringify(reset.matrix) === "[1,0,0,1,0,0]" && reset.region === "whole", `reset ${JSON.stringify(reset)}`);

    const touches = [];
    const gestures = [];
    const matrices = [];
    client.addEventListener("touches", (e) => touches.push(e.detail));
    client.addEventListener("gesture", (e) => gestures.push(e.detail));
    client.addEventListener("matrix", (e) => matrices.push(e.detail));
    const removed = next(client, "deviceRemoved", 60000);
    await client.subscribe({ streams: ["touches", "gestures", "devices"] });
    await removed;
    check(touches.length > 0 && touches.every((m) => m.region === "whole" && m.role === "owner"),
      `touches routed to the region: ${JSON.stringify(touches[0])}`);
    check(gestures.length > 0 && gestures.every((m) => m.region === "whole"), "gestures of the region's session");
    const last = gestures[gestures.length - 1];
    const lastMatrix = matrices[matrices.length - 1];
    check(lastMatrix.region === "whole" && JSON.stringify(lastMatrix.matrix) === JSON.stringify(last.matrix),
      `the region's matrix follows its gestures: ${JSON.stringify(lastMatrix)}`);
    check(matrices.every((m) => m.region === "whole"), "every matrix event names the region");
    check(!client.matrices.has(device.id), "region gestures leave the device's matrix alone");
    check(!client.regions.has(device.id) && !client.regionMatrices.has(`${device.id}/whole`),
      "the device's removal ends its regions");
    client.close();
  });
}

async function testUpdateRegions(tmp) {
  const path = join(tmp, "idle.evemu");
  writeFileSync(path, recording());
  await withBridge(tmp, ["--replay", path, "--wait-for-subscribers", "1"], async ({ host, token }) => {
    const client = new MultitouchClient(`ws://${host}/ws?token=${token}`, { reconnect: false });
    const hello = next(client, "hello");
    client.connect();
    await hello;
    const device = [...client.devices.values()][0];
    await client.declareRegions(device.id, [{ id: "a", rect: [0, 0, 10, 10] }, { id: "b", rect: [10, 0, 10, 10] }]);
    const reply = await client.updateRegions(device.id, { regions: [{ id: "c", rect: [0, 10, 10, 10], z: 1 }], remove: ["a"] });
    check(JSON.stringify(reply.regions) === '["b","c"]', `update reply ${JSON.stringify(reply)}`);
    check(JSON.stringify(client.regions.get(device.id).map((r) => r.id)) === '["b","c"]', "the kept regions follow");
    const cleared = await client.declareRegions(device.id, []);
    check(cleared.regions.length === 0 && !client.regions.has(device.id), "an empty declaration: the whole device again");
    const recognized = await client.recognized(device.id, "nowhere").then(() => null, (e) => e);
    check(recognized instanceof RequestError && recognized.code === "bad-field", `recognized on no region: ${recognized}`);
    client.close();
  });
}

const tests = [testRefusedTokenIsReported, testRegions, testUpdateRegions];
let passed = 0;
let failed = 0;
for (const test of tests) {
  const tmp = mkdtempSync(join(tmpdir(), "mtd-js-"));
  try {
    await test(tmp);
    passed++;
    console.log(`ok    ${test.name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL  ${test.name}: ${error.stack || error}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
