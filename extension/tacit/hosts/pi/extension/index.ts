/**
 * tacit for pi: memory the agent never has to be told to keep.
 *
 * A thin client. It connects to the data folder's tacit service (a unix
 * socket, starting the service when there is none), or — when the service
 * cannot be reached — starts `python -m tacit bridge --stdio`, and speaks
 * the JSON-lines protocol of docs/hosts/pi.md with it. It only translates:
 * pi's events become tacit's host-neutral events, tacit's answers become a
 * chained system prompt, tool results, blocked tool calls and notices. Every
 * decision is made by the engine in Python.
 *
 * Never break pi: the factory and every handler catch everything; every
 * request has a timeout; if the link dies it is re-made at most MAX_RESTARTS
 * times, then tacit logs once, notifies once and goes inert while pi carries on.
 *
 * Plain JavaScript syntax on purpose (no type imports to resolve).
 */
import { spawn } from "node:child_process";
import { appendFileSync, lstatSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { createConnection } from "node:net";
import { homedir } from "node:os";
import { basename, delimiter, dirname, join, resolve } from "node:path";

const PROTOCOL = 2;
const SERVICE_WAIT_MS = 4000; // how long a new session waits for the service to come up
const MAX_RESTARTS = 3; // after a crash or a missing Python; then tacit goes inert
const UNREAD_MAX = 256; // events kept for the next link while the current one has not answered
const REPLAYED = new Set(["event", "ping"]); // requests a dead link's successor answers (events carry an id)
// tool/command defaults; the handshake replaces them (a memory add may consolidate first)
const TIMEOUT_MS = { hello: 10000, event: 5000, turn: 5000, tool: 360000, command: 660000, tool_call: 3000 };
const COMMANDS = { // = tacit.slash_table.COMMANDS (tests/unit/test_pi_bridge.py checks they agree)
  "memory-consolidate": "Consolidate tacit's memory near its limit (force: every scope) and show the report",
  "memory-skills": "List the skills tacit has saved, with their files",
  "memory-show": "Show tacit's memory per scope, then the candidates it is weighing",
  "memory-forget": "Forget what a text says, in every scope (or a candidate's key)",
  "memory-teach": "Teach tacit a memory explicitly (saved at once; --user for USER.md)",
  "memory-review": "Review what tacit noted today: keep, drop or edit before it becomes memory",
};
const LOADED = Symbol.for("tacit.pi.extension.active");
// how long the session's end waits for the prompt in flight: a new link's wait and handshake, then the event
const TURN_WAIT_MS = SERVICE_WAIT_MS + TIMEOUT_MS.hello + TIMEOUT_MS.turn;

function here() {
  try {
    if (typeof __filename === "string" && __filename) return __filename;
  } catch (err) {}
  try {
    return decodeURIComponent(new URL(import.meta.url).pathname);
  } catch (err) {
    return "";
  }
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

function sessionOf(ctx) {
  try {
    const id = ctx && ctx.sessionManager && ctx.sessionManager.getSessionId();
    if (typeof id === "string" && id) return id;
  } catch (err) {}
  return "pi-" + process.pid;
}

function common(ctx) {
  const out = { session_id: sessionOf(ctx) };
  try {
    // a tacit child runs in the data folder; the project it works for is $TACIT_PROJECT
    const childProject = process.env.TACIT_CHILD === "1" ? process.env.TACIT_PROJECT : "";
    if (childProject) out.cwd = childProject;
    else if (ctx && typeof ctx.cwd === "string") out.cwd = ctx.cwd;
    const model = ctx && ctx.model;
    if (model && model.provider && model.id) out.model = model.provider + "/" + model.id;
  } catch (err) {}
  return out;
}

function dataDir() {
  // the same rule as tacit.paths.data_dir
  if (process.env.TACIT_HOME) {  // a relative path starts at home, never at the working folder
    return resolve(process.env.HOME || homedir(), process.env.TACIT_HOME.replace(/^~(?=$|\/)/, homedir()));
  }
  return join(process.env.HOME || homedir(), ".tacit");
}

function defaultLogFile() {
  return join(dataDir(), "logs", "tacit.log");
}

function codeIdentity(packageDir) {
  // tacit.paths.code_identity: the version and the install's client file mtime
  try {
    const init = readFileSync(join(packageDir, "__init__.py"), "utf8");
    const match = init.match(/__version__\s*=\s*["']([^"']+)["']/);
    const stamp = statSync(join(packageDir, "hosts", "hook_client.py"), { bigint: true }).mtimeNs;
    return match ? `${match[1]}+${stamp}` : "";
  } catch (err) {
    return "";
  }
}

function connectOnce(path, timeoutMs) {
  // resolves to a connected socket or null
  return new Promise((done) => {
    let settled = false;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(value);
    };
    const sock = createConnection({ path });
    const timer = setTimeout(() => {
      sock.destroy();
      finish(null);
    }, timeoutMs);
    sock.once("connect", () => finish(sock));
    sock.once("error", () => finish(null));
  });
}

function untrusted(runDir) {
  // "" when the run folder and its socket are this user's own (or not made yet); else why not
  // (another local user who made run/ first must never receive a prompt or answer for tacit)
  if (typeof process.getuid !== "function") return "";
  const uid = process.getuid();
  let st;
  try {
    st = lstatSync(runDir);
  } catch (err) {
    return "";
  }
  if (!st.isDirectory()) return `${runDir} is not a folder (a link or a file)`;
  if (st.uid !== uid) return `${runDir} belongs to another user (uid ${st.uid})`;
  if (st.mode & 0o077) return `${runDir} is open to other users`;
  try {
    st = lstatSync(join(runDir, "tacit.sock"));
  } catch (err) {
    return "";
  }
  if (!st.isSocket()) return `${runDir}/tacit.sock is not a socket (a link or a file)`;
  if (st.uid !== uid) return `${runDir}/tacit.sock belongs to another user (uid ${st.uid})`;
  return "";
}

function appendLog(path, level, message) {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const stamp = new Date().toISOString().slice(0, 19);
    appendFileSync(path, `${stamp} ${level} [${process.pid}] pi.extension: ${message}\n`);
  } catch (err) {}
}

function createClient(pi, file) {
  let proc = null; // the running bridge, or null
  let hello = null; // Promise of the handshake result of `proc`
  let pending = new Map();
  let nextId = 1;
  let failures = 0;
  let inert = false;
  let toolsRegistered = false;
  let logFile = "";
  let lastCtx = null;
  let stderrTail = "";
  let seq = 0; // orders what was written: a response means tacit read every line written before it
  let unread = []; // [seq, params] of event notifications no response has confirmed yet
  let ended = false; // this session's end was sent: a late event must not start a new link
  let eventIds = 0;

  function settings() {
    try {
      return JSON.parse(readFileSync(join(dirname(file), "tacit.json"), "utf8")) || {};
    } catch (err) {
      return {};
    }
  }

  function log(level, message) {
    appendLog(logFile || defaultLogFile(), level, message);
  }

  function show(text, ctx) {
    try {
      const c = ctx || lastCtx;
      if (c && c.hasUI && c.ui) c.ui.notify(text, "info");
      else process.stderr.write(`[tacit] ${text}\n`);
    } catch (err) {}
  }

  function giveUp(reason) {
    if (inert) return;
    inert = true;
    log("WARNING", `giving up after ${failures} failure(s): ${reason}`);
    show(`memory is off for this session (${reason}); pi works as usual. Details: ${logFile || defaultLogFile()}`);
  }

  function died(which, reason) {
    if (proc !== which) return;
    proc = null;
    hello = null;
    const waiting = pending;
    pending = new Map();
    // what the dead link may never have read (it died before answering), in the order written:
    // sent again on the next link; each event's id makes tacit apply it once
    const again = unread.map(([mark, params]) => ({ mark, params }));
    unread = [];
    for (const entry of waiting.values()) {
      clearTimeout(entry.timer);
      if (entry.replay) {
        again.push(entry);
        continue;
      }
      const err = new Error(reason);
      err.bridgeDied = true; // already logged once by failed(); callers stay quiet
      entry.reject(err);
    }
    failed(reason);
    again.sort((a, b) => a.mark - b.mark);
    if (again.length) log("INFO", `sending again what the lost link never answered: ${again.map((i) => i.params.kind || i.method).join(", ")}`);
    for (const item of again) resend(item, reason);
  }

  function resend(item, reason) {
    const ready = ensure();
    const lost = (err) => {
      if (err && err.bridgeDied && !inert && !ended) return resend(item, reason); // that link died too
      if (!item.reject) return;
      const out = err || new Error(reason);
      out.bridgeDied = !err || err.bridgeDied;
      item.reject(out);
    };
    if (!ready) return lost(null);
    ready.then((info) => {
      if (!item.reject) sendEvent(info, item.params);
      else request(info.link, item.method, item.params, item.timeoutMs).then(item.resolve, item.reject);
    }, lost);
  }

  function sendEvent(info, params) {
    if (!info.capabilities.includes("events")) return;
    if (proc !== info.link) {
      if (!ended && !inert) post(params); // that link died after its handshake: the next one
      return;
    }
    write(info.link, { method: "event", params });
    unread.push([++seq, params]);
    if (unread.length > UNREAD_MAX) unread.shift();
  }

  function withId(params) {
    // tacit applies an event once per id: one sent again on a new link is not counted twice
    return params.id ? params : { ...params, id: `pi-${process.pid}-${Date.now().toString(36)}-${++eventIds}` };
  }

  function failed(reason) {
    failures += 1;
    if (/ENOENT|EACCES/.test(reason)) failures = MAX_RESTARTS + 1; // no such Python: it will not appear mid-session
    if (failures === 1) {
      const tail = stderrTail.trim().split("\n").slice(-5).join(" | ");
      log("WARNING", `link to tacit lost: ${reason}${tail ? ": " + tail : ""}`);
    }
    if (failures > MAX_RESTARTS) giveUp(reason);
  }

  function onLine(line) {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch (err) {
      log("WARNING", `tacit sent a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (message && message.event === "notify" && message.params) {
      show(String(message.params.text || ""));
      return;
    }
    const entry = message && pending.get(message.id);
    if (!entry) return;
    unread = unread.filter(([mark]) => mark > entry.mark); // read before this request was
    pending.delete(message.id);
    clearTimeout(entry.timer);
    if (message.error) entry.reject(new Error(`${message.error.code}: ${message.error.message}`));
    else entry.resolve(message.result);
  }

  function write(which, message) {
    try {
      which.write(JSON.stringify(message) + "\n");
    } catch (err) {
      died(which, `write failed: ${err.message}`);
    }
  }

  function request(which, method, params, timeoutMs, signal) {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      if (signal) {
        signal.addEventListener("abort", () => {
          const entry = pending.get(id);
          if (!entry) return;
          pending.delete(id);
          clearTimeout(entry.timer);
          reject(new Error(`${method} cancelled`));
        }, { once: true });
      }
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method} timed out after ${timeoutMs} ms`));
        // a link that cannot answer a handshake or an event is hung: replace it
        if (method === "hello" || method === "event") {
          try {
            which.kill();
          } catch (err) {}
        }
      }, timeoutMs);
      // not unref'd: while a request waits, pi must not exit under it
      pending.set(id, { resolve, reject, timer, mark: ++seq, method, params, timeoutMs,
        replay: REPLAYED.has(method) && !signal });
      write(which, { id, method, params });
    });
  }

  function registerTools(tools) {
    if (toolsRegistered || !Array.isArray(tools)) return;
    toolsRegistered = true;
    for (const def of tools) {
      pi.registerTool({
        name: def.name,
        label: def.label || def.name,
        description: def.description,
        promptSnippet: def.promptSnippet,
        parameters: def.parameters,
        async execute(toolCallId, params, signal, onUpdate, ctx) {
          const result = await call("tool", { name: def.name, args: params, ...common(ctx) },
            TIMEOUT_MS.tool, signal);
          if (!result) throw new Error("tacit did not answer (bridge unavailable or timed out); see its log");
          const text = JSON.stringify(result);
          if (result.success === false) throw new Error(text);
          return { content: [{ type: "text", text }], details: result };
        },
      });
    }
  }

  function attach(link, kind) {
    // link: { write(text), kill(), end(), onData(fn), onClose(fn) }
    proc = link;
    link.kind = kind;
    let buffer = "";
    link.onData((chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        onLine(line);
      }
    });
    link.onClose((reason) => died(link, reason));
  }

  function spawnBridge(python, env) {
    let child;
    try {
      child = spawn(python, ["-P", "-m", "tacit", "bridge", "--stdio"], { stdio: ["pipe", "pipe", "pipe"], env });
    } catch (err) {
      failed(`cannot start ${python}: ${err.message}`);
      return null;
    }
    stderrTail = "";
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      stream.on("error", () => {}); // EPIPE after the bridge died: handled by "exit"
      if (stream.unref) stream.unref();
    }
    child.unref(); // pi -p must exit when its prompt is done, not wait for us
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderrTail = (stderrTail + chunk).slice(-2000);
    });
    return {
      write: (text) => child.stdin.write(text),
      kill: () => child.kill("SIGKILL"),
      end: () => child.stdin.end(),
      onData: (fn) => child.stdout.on("data", fn),
      onClose: (fn) => {
        child.on("error", (err) => fn(`could not run ${python}: ${err.message}`));
        child.on("exit", (code, signal) => fn(`exited (code ${code}, signal ${signal})`));
      },
    };
  }

  async function openService(python, env, packageDir) {
    // a socket link to the data folder's service, or null (then: the bridge)
    const identity = codeIdentity(packageDir);
    const path = join(dataDir(), "run", "tacit.sock");
    if (!identity || Buffer.byteLength(path) >= 100) return null; // AF_UNIX paths are short
    const refuse = () => {
      const problem = untrusted(dirname(path));
      if (problem) log("ERROR", `not using the service: ${problem} (the bridge instead)`);
      return problem;
    };
    if (refuse()) return null;
    let sock = await connectOnce(path, 1000);
    if (!sock) {
      let failedToStart = false; // no python, or the service exited with an error: stop waiting
      try {
        const server = spawn(python, ["-P", "-m", "tacit", "serve"], { stdio: "ignore", env, detached: true });
        server.on("error", () => {
          failedToStart = true;
        });
        server.on("exit", (code) => {
          if (code) failedToStart = true; // 0: another instance holds the lock, its socket is coming
        });
        server.unref();
      } catch (err) {
        return null;
      }
      const deadline = Date.now() + SERVICE_WAIT_MS;
      while (!sock && !failedToStart && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
        if (refuse()) return null;
        sock = await connectOnce(path, 500);
      }
      if (!sock) return null;
    }
    let rest = "";
    const answer = await new Promise((done) => {
      let head = "";
      const onData = (chunk) => {
        head += chunk;
        const newline = head.indexOf("\n");
        if (newline < 0) return;
        sock.removeListener("data", onData);
        sock.pause(); // nothing may flow before attach() listens
        rest = head.slice(newline + 1);
        done(head.slice(0, newline));
      };
      sock.setEncoding("utf8");
      sock.on("data", onData);
      sock.once("close", () => done(""));
      sock.write(`TACIT1 rpc ${identity}\n`);
    });
    if (answer !== "OK") {
      sock.destroy();
      return null; // another version serves this folder: it stops, the next session starts ours
    }
    sock.unref(); // pi -p must exit when its prompt is done
    sock.on("error", () => {});
    return {
      write: (text) => sock.write(text),
      kill: () => sock.destroy(),
      end: () => sock.end(),
      onData: (fn) => {
        if (rest) fn(rest);
        sock.on("data", fn);
        sock.resume();
      },
      onClose: (fn) => sock.once("close", () => fn("the service closed the connection")),
    };
  }

  function start() {
    const config = settings();
    const python = process.env.TACIT_PYTHON || config.python || "python3";
    const env = { ...process.env, TACIT_HOST: "pi" };
    delete env.TACIT_PYTHON;
    // children run `pi`: make the pi running us findable even when it is not on PATH
    const piScript = process.argv[1] || "";
    if (basename(piScript) === "pi") env.PATH = (env.PATH ? env.PATH + delimiter : "") + dirname(piScript);
    // installed by `tacit install pi`: tacit.json names the package; loaded from
    // inside the package itself (pi -e …/tacit/hosts/pi/extension/index.ts): three folders up
    const packageDir = config.package_dir || resolve(dirname(file || "."), "..", "..", "..");
    const token = {};
    proc = token; // a link is being made
    hello = (async () => {
      let link = process.env.TACIT_PI_TRANSPORT !== "bridge" ? await openService(python, env, packageDir) : null;
      let kind = "service";
      if (!link) {
        link = spawnBridge(python, env);
        kind = "bridge";
      }
      if (!link) throw new Error("no link to tacit");
      if (proc !== token) {
        link.kill();
        throw new Error("superseded");
      }
      attach(link, kind);
      const result = await request(link, "hello", {
        protocol: PROTOCOL, client: "tacit-pi", extension_path: file, child: process.env.TACIT_CHILD === "1",
        actor: process.env.TACIT_CHILD === "1" ? process.env.TACIT_ACTOR || "" : "",
        // a service another host's hook started has that host's environment: our children need pi's
        // (its PATH, PI_CODING_AGENT_DIR); tacit keeps only the variables pi's spec names
        env,
      }, TIMEOUT_MS.hello);
      if (!result || result.protocol !== PROTOCOL) throw new Error(`protocol ${result && result.protocol}`);
      if (result.log_file) logFile = result.log_file;
      for (const key of ["tool", "command"]) {
        const seconds = result.timeouts && result.timeouts[key];
        if (typeof seconds === "number" && seconds > 0) TIMEOUT_MS[key] = seconds * 1000;
      }
      registerTools(result.tools);
      result.link = link;
      return result;
    })();
    hello.catch((err) => {
      if (!err.bridgeDied) log("WARNING", `handshake failed: ${err.message}`);
      const link = proc;
      if (link && link !== token && link.kill) {
        try {
          link.kill(); // counted as a failure when it closes
        } catch (e) {}
      } else if (proc === token) {
        proc = null;
        hello = null;
        failed(err.message);
      }
    });
    return true;
  }

  function ensure() {
    if (inert || ended) return null;
    if (!proc) {
      if (!start()) return null;
    }
    return hello;
  }

  async function call(method, params, timeoutMs, signal) {
    if (method === "event") params = withId(params);
    if (ended) return late(params, method);
    for (let attempt = 0; attempt <= MAX_RESTARTS; attempt++) {
      let info;
      try {
        const ready = ensure();
        if (!ready) return null;
        info = await ready;
      } catch (err) {
        // the link died in its handshake: an event waits for the next one (a dead link's
        // pending events are sent again by died() itself)
        if (err.bridgeDied && REPLAYED.has(method) && !signal) continue;
        if (!err.bridgeDied) log("WARNING", `${method} ${params.kind || params.name || ""}: ${err.message}`);
        return null;
      }
      try {
        if (method === "event" && !info.capabilities.includes("events")) return null;
        if (method === "command" && !info.capabilities.includes("commands")) return null;
        return await request(info.link, method, params, timeoutMs, signal);
      } catch (err) {
        if (!err.bridgeDied) log("WARNING", `${method} ${params.kind || params.name || ""}: ${err.message}`);
        return null;
      }
    }
    return null;
  }

  function post(params) {
    // a notification: ordered after the handshake, never awaited by pi
    try {
      params = withId(params);
      if (ended) return late(params);
      const ready = ensure();
      if (!ready) return;
      ready.then((info) => sendEvent(info, params)).catch(() => {});
    } catch (err) {}
  }

  function late(params, method = "event") {
    // pi emitted it after the session's end was sent (tacit waited for the prompt in flight)
    log("WARNING", `${params.kind || method} came after this session's end was sent; not sent`);
    return null;
  }

  function stop() {
    // end of input = shutdown: the bridge answers what it still has, finishes
    // its work and exits; a later session of this runtime starts a new one
    const which = proc;
    proc = null;
    hello = null;
    ended = true;
    unread = [];
    try {
      if (which && which.end) which.end();
    } catch (err) {}
  }

  return {
    call,
    post,
    stop,
    show,
    log,
    remember(ctx) {
      if (ctx) lastCtx = ctx;
    },
    reopen() {
      ended = false; // a new session of this runtime
    },
    ready: () => call("ping", {}, TIMEOUT_MS.event),
  };
}

export default function (pi) {
  try {
    const file = here();
    if (globalThis[LOADED]) {
      // another copy (user and project scope both installed): one tacit is enough
      appendLog(defaultLogFile(), "INFO", `${file} not started: ${globalThis[LOADED]} is active`);
      return;
    }
    globalThis[LOADED] = file || true;
    const tacit = createClient(pi, file);
    // pi runs a prompt's last events (the reply's message_end, agent_end) from a queue it does
    // not wait for before session_shutdown: the session's end waits for the prompt in flight
    let turn = null;
    const turnEnded = () => {
      if (turn) turn.end();
      turn = null;
    };

    const on = (name, handler) =>
      pi.on(name, async (event, ctx) => {
        try {
          tacit.remember(ctx);
          return await handler(event || {}, ctx);
        } catch (err) {
          tacit.log("WARNING", `${name} handler: ${err && err.message}`);
          return undefined;
        }
      });

    on("session_start", async (event, ctx) => {
      if (!globalThis[LOADED]) globalThis[LOADED] = file || true; // a new session in the same runtime
      tacit.reopen();
      await tacit.ready(); // handshake first: the tools must exist before the first prompt
      tacit.post({ kind: "session_start", source: event.reason || "startup", ...common(ctx) });
    });
    on("input", async (event, ctx) => {
      const text = typeof event.text === "string" ? event.text.trim() : "";
      if (text.startsWith("/")) {
        const space = text.indexOf(" ");
        const name = (space < 0 ? text : text.slice(0, space)).slice(1);
        tacit.post({ kind: "command", name, args: space < 0 ? "" : text.slice(space + 1), ...common(ctx) });
      }
      return undefined;
    });
    on("before_agent_start", async (event, ctx) => {
      turnEnded();
      let end;
      const done = new Promise((resolve) => (end = resolve));
      turn = { done, end };
      const result = await tacit.call("event", { kind: "before_agent_start", prompt: event.prompt || "", ...common(ctx) },
        TIMEOUT_MS.event);
      if (!result) return undefined;
      for (const notice of result.notices || []) tacit.show(notice, ctx);
      const out = {};
      if (result.context) out.systemPrompt = (event.systemPrompt || "") + "\n\n" + result.context;
      if (result.prompt_context) out.message = { customType: "tacit", content: result.prompt_context, display: false };
      return Object.keys(out).length ? out : undefined;
    });
    on("message_end", async (event, ctx) => {
      const message = event.message || {};
      if (message.role !== "user" && message.role !== "assistant") return undefined;
      const text = textOf(message.content);
      if (!text) return undefined;
      if (message.role === "assistant") {
        tacit.post({ kind: "message_end", role: message.role, text, ...common(ctx) });
        return undefined;
      }
      // the user's message is a request: what it returns ("Forgot …", a saved correction) is shown
      const result = await tacit.call("event", { kind: "message_end", role: "user", text, ...common(ctx) },
        TIMEOUT_MS.event);
      for (const notice of (result && result.notices) || []) tacit.show(notice, ctx);
      return undefined;
    });
    on("tool_call", async (event, ctx) => {
      // checked before the tool runs: a guard may stop it (blocks cost one round trip)
      const result = await tacit.call("event", {
        kind: "tool_call",
        name: String(event.toolName || ""),
        args: event.input && typeof event.input === "object" ? event.input : {},
        ...common(ctx),
      }, TIMEOUT_MS.tool_call);
      for (const notice of (result && result.notices) || []) tacit.show(notice, ctx);
      if (result && result.block) return { block: true, reason: String(result.reason || "blocked by tacit") };
      return undefined;
    });
    on("tool_result", async (event, ctx) => {
      tacit.post({
        kind: "tool_result",
        name: String(event.toolName || ""),
        ok: !event.isError,
        args: event.input && typeof event.input === "object" ? event.input : {},
        error: event.isError ? textOf(event.content) || "failed" : null,
        ...common(ctx),
      });
      return undefined;
    });
    on("agent_end", async (event, ctx) => {
      // a pi turn_end is one model response; tacit's turn is the whole prompt
      try {
        const result = await tacit.call("event", { kind: "turn_end", ...common(ctx) }, TIMEOUT_MS.turn);
        for (const notice of (result && result.notices) || []) tacit.show(notice, ctx);
      } finally {
        turnEnded();
      }
      return undefined;
    });
    on("session_before_compact", async (event, ctx) => {
      tacit.post({ kind: "before_compact", ...common(ctx) });
      return undefined;
    });
    on("session_shutdown", async (event, ctx) => {
      if (turn) {
        // bounded: what the turn's end may take on a new link (its handshake, then the event)
        let timer;
        const bound = new Promise((resolve) => (timer = setTimeout(resolve, TURN_WAIT_MS)));
        await Promise.race([turn.done, bound]);
        clearTimeout(timer);
        if (turn) tacit.log("WARNING", `session_shutdown: the prompt in flight did not end in ${TURN_WAIT_MS} ms`);
      }
      await tacit.call("event", { kind: "session_shutdown", reason: event.reason || "", ...common(ctx) },
        TIMEOUT_MS.event);
      tacit.stop();
      if (globalThis[LOADED] === (file || true)) delete globalThis[LOADED];
      return undefined;
    });

    for (const [name, description] of Object.entries(COMMANDS)) {
      pi.registerCommand(name, {
        description,
        handler: async (args, ctx) => {
          try {
            tacit.remember(ctx);
            const result = await tacit.call("command", { name, args: args || "", ...common(ctx) },
              TIMEOUT_MS.command);
            tacit.show(result ? String(result.text || "") : "tacit is not available (see its log)", ctx);
          } catch (err) {
            tacit.log("WARNING", `/${name}: ${err && err.message}`);
          }
        },
      });
    }
  } catch (err) {
    // a throwing factory makes pi exit 1: swallow everything
    try {
      process.stderr.write(`[tacit] disabled: ${err && err.message}\n`);
    } catch (e) {}
  }
}
