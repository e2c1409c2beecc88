// The structural edit gateway's OpenCode plugin, written by `gateway hook install opencode`;
// `gateway hook uninstall opencode` removes it. Every edit, write, patch and shell call is
// judged by `gateway hook opencode` before it runs: a refusal throws (OpenCode gives the model
// the reason as the tool's result), a routed edit is assigned into the call's own arguments.
// If the gateway cannot be run or answers nonsense, the call is refused, never let through.
import { spawn, spawnSync } from "node:child_process";

const PROGRAM = "__GATEWAY_PROGRAM__";
const TIMEOUT_MS = 120000;
const JUDGED = new Set(["edit", "write", "apply_patch", "bash"]);

function ask(event, tool, args, directory, input) {
  const payload = JSON.stringify({
    hook_event_name: event, tool, args, cwd: directory, session_id: input.sessionID, call_id: input.callID,
  });
  const done = spawnSync(PROGRAM, ["hook", "opencode"], { input: payload, encoding: "utf8", timeout: TIMEOUT_MS });
  if (done.error || done.status !== 0) {
    const why = (done.stderr || "").trim() || (done.error ? done.error.message : `exit ${done.status}`);
    throw new Error(`${why} (the gateway refused the ${tool} call)`);
  }
  const text = (done.stdout || "").trim();
  if (!text) return null;
  const answer = JSON.parse(text);
  if (!answer || typeof answer.action !== "string") throw new Error("gateway: unreadable answer; the call is refused");
  return answer;
}

export const GatewayPlugin = async ({ directory }) => {
  const calls = new Map();
  try {
    const warm = spawn(PROGRAM, ["hook", "opencode", "start"], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
    warm.on("error", () => {});
    warm.stdin.end(JSON.stringify({ tool: "start", cwd: directory }));
    warm.unref();
  } catch {
    // the first edit is judged all the same, only slower
  }
  return {
    // The end of a turn: with typed edits enforced, writes made since the last check are put
    // back. It refuses nothing, so a failure here is not an error.
    event: async ({ event }) => {
      if (!event || event.type !== "session.idle") return;
      spawnSync(PROGRAM, ["hook", "opencode", "stop"], {
        input: JSON.stringify({ hook_event_name: "session.idle", cwd: directory }), encoding: "utf8", timeout: TIMEOUT_MS,
      });
    },
    "tool.execute.before": async (input, output) => {
      if (!JUDGED.has(input.tool)) return;
      const answer = ask("tool.execute.before", input.tool, output.args ?? {}, directory, input);
      if (answer && answer.action === "deny") throw new Error(answer.reason);
      if (answer && answer.action === "rewrite") Object.assign(output.args, answer.args);
      calls.set(input.callID, output.args ?? {});
    },
    "tool.execute.after": async (input, output) => {
      if (!JUDGED.has(input.tool) || !calls.has(input.callID)) return;
      const args = calls.get(input.callID);
      calls.delete(input.callID);
      let answer;
      try {
        answer = ask("tool.execute.after", input.tool, args, directory, input);
      } catch (error) {
        answer = { action: "context", text: String(error.message) };
      }
      if (answer && answer.action === "context") output.output = `${output.output ?? ""}\n\n${answer.text}`;
    },
  };
};
