// Starting and stopping the two programs the end-to-end test drives:
// code-server and headless Chromium. Each runs in its own process group
// (detached) so that stopping it also stops its children (the extension
// host, eqlens serve, renderer processes); their group ids go to a file the
// entry script's exit trap reads, so nothing survives a killed test run.
import { spawn } from "node:child_process";
import { appendFileSync, createWriteStream, readdirSync, readFileSync, writeFileSync } from "node:fs";

/**
 * Spawns `command` detached, logging its output to `logFile`, and resolves
 * with the first match of `pattern` in that output (e.g. the port it
 * listens on). Rejects if it exits first or `timeoutMs` passes.
 */
export function spawnAndAwait({ name, command, args, env, logFile, pidFile, pattern, timeoutMs }) {
  const log = createWriteStream(logFile, { flags: "a" });
  const child = spawn(command, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  appendFileSync(pidFile, `${child.pid}\n`);
  let seen = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name} did not print ${pattern} within ${timeoutMs / 1000} s; its output is in ${logFile}:\n${seen.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk) => {
      log.write(chunk);
      if (seen === null) {
        return;
      }
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        seen = null;
        clearTimeout(timer);
        resolve({ child, match, stop: () => stopGroup(child, pidFile) });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not start ${name} (${command}): ${error.message}`));
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (seen !== null) {
        reject(new Error(`${name} exited (${code ?? signal}) before it was ready; its output is in ${logFile}:\n${seen.slice(-2000)}`));
      }
    });
  });
}

/**
 * SIGTERM to the whole group, SIGKILL if it is still there after a grace
 * period; then the group leaves the pid file, so the exit trap never
 * signals a number that may since have been reused.
 */
export async function stopGroup(child, pidFile) {
  try {
    await signalGroup(child);
  } finally {
    const left = readFileSync(pidFile, "utf8")
      .split("\n")
      .filter((line) => line !== "" && line !== String(child.pid));
    writeFileSync(pidFile, left.map((line) => `${line}\n`).join(""));
  }
}

/**
 * Whether a process of the group still runs. Read from /proc rather than
 * with signal 0, which also succeeds for zombies waiting to be reaped by
 * init after their parent (code-server) died.
 */
function groupAlive(pgid) {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && Number(fields[2]) === pgid) {
      return true;
    }
  }
  return false;
}

async function until(condition, ms) {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

/** The leader may exit before its children (the extension host, eqlens serve): wait for the whole group. */
async function signalGroup(child) {
  if (!groupAlive(child.pid)) {
    return;
  }
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return; // gone meanwhile
  }
  if (!(await until(() => !groupAlive(child.pid), 8000))) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
    await until(() => !groupAlive(child.pid), 5000);
  }
}

/** Runs a command to completion; resolves with its output, rejects with it on a non-zero exit. */
export function runToCompletion(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) {
        resolve(output);
      } else {
        reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output}`));
      }
    });
  });
}
