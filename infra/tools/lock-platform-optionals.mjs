#!/usr/bin/env node
// The registry this project installs from serves only the Linux x64 builds of packages that ship one binary
// package per platform (@biomejs/cli-*, @duckdb/node-bindings-*). npm then leaves the other platforms' optional
// dependencies out of package-lock.json, and `npm ci` refuses the lock as "not in sync". This adds them back as
// optional entries restricted by os/cpu/libc, so npm ci accepts the lock and never fetches them on this platform.
// Run after any `npm install` that rewrites the lock: node infra/tools/lock-platform-optionals.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const platformOf = (name) => {
  const os = ['android', 'darwin', 'linux', 'win32', 'freebsd'].find((o) => name.includes(`-${o}`));
  const cpu = ['arm64', 'x64', 'ia32', 'arm'].find((c) => name.includes(`-${c}`));
  if (!os || !cpu) return undefined;
  return {
    os: [os],
    cpu: [cpu],
    ...(name.includes('-musl') ? { libc: ['musl'] } : os === 'linux' ? { libc: ['glibc'] } : {}),
  };
};
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    const platform = platformOf(dep);
    if (lock.packages[key] || !platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[key] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
  void path;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform-optional lock entries`);
