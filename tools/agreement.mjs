// The simulator's agreement with the real engine (docs/replay.md), measured the same way on
// every target: `kvlab replay --json` natively and in Node (wasm), and the page's "Simulated vs real"
// panel in headless Chromium. Runs each target N times, one replay at a time, and prints per replay
// the error of median TTFT and of makespan for each policy, the run's drift, and the CPU time the
// rest of the machine used meanwhile ("others": the machine's busy time minus the replay's own wall
// time, since a replay keeps one core busy), and the time the hypervisor took from the VM's vCPUs
// ("steal", both vCPUs together: a virtual machine on a shared host pays it even when idle itself);
// then per target the median |error| and how many
// policies met the 5% target on both figures. Exit status 0 whatever the errors: it is a measurement.
// Every policy family is replayed, the memory ones (reserve:8, paged:8, chunked:8,64) in a KV budget of
// --kv-tokens (default 512, the panel's), the same on every target.
//
//   node tools/agreement.mjs [--runs N] [--targets native,node,chromium] [--kv-tokens N] [--out FILE.json]
//

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireDist, root, startBrowser, startServer } from '../tests/web/helpers.mjs';

const TARGET = 0.05;
const TARGETS = ['native', 'node', 'chromium'];
// The panel's names for its families at its defaults (web/src/panels/replay/config.js).
const POLICIES = ['serial-nocache', 'serial-cache', 'static:8', 'continuous:8', 'reserve:8', 'paged:8', 'chunked:8,64'];

function usage(message) {
  console.error(
    `agreement: ${message}\nusage: node tools/agreement.mjs [--runs N (1-50)] [--targets ${TARGETS.join(',')}] [--kv-tokens N] [--out FILE.json]`
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = { runs: 3, targets: TARGETS, kvTokens: 512, out: null };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!['--runs', '--targets', '--kv-tokens', '--out'].includes(flag)) usage(`unknown flag ${flag}`);
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === '--runs') {
      options.runs = Number(value);
      if (!Number.isInteger(options.runs) || options.runs < 1 || options.runs > 50)
        usage('--runs must be an integer in 1..50');
    } else if (flag === '--targets') {
      options.targets = value.split(',');
      const unknown = options.targets.filter((t) => !TARGETS.includes(t));
      if (unknown.length || !options.targets.length) usage(`--targets must be a list of ${TARGETS.join(', ')}`);
    } else if (flag === '--kv-tokens') {
      options.kvTokens = Number(value);
      if (!Number.isInteger(options.kvTokens) || options.kvTokens < 1) usage('--kv-tokens must be a positive integer');
    } else {
      options.out = value;
    }
    i += 1;
  }
  return options;
}

// CPU seconds of the whole machine so far (every core), from /proc/stat: busy (every state but idle
// and iowait, steal included) and steal alone (time the hypervisor ran something else on a vCPU).
function cpuSeconds() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + fields[4];
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / 100, steal: fields[7] / 100 };
}

async function timed(run) {
  const before = cpuSeconds();
  const start = performance.now();
  const result = await run();
  const wallS = (performance.now() - start) / 1000;
  const after = cpuSeconds();
  return {
    result,
    wall_s: wallS,
    others_s: Math.max(0, after.busy - before.busy - wallS),
    steal_s: after.steal - before.steal,
  };
}

function cliReplay(wasm, kvTokens) {
  const args = [
    ...(wasm ? ['--wasm'] : []),
    'replay',
    '--json',
    ...POLICIES.flatMap((p) => ['--policy', p]),
    '--kv-tokens',
    String(kvTokens),
  ];
  return JSON.parse(execFileSync(path.join(root, 'scripts', 'kvlab'), args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

async function chromiumReplay(context, url, kvTokens) {
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.waitForSelector('#replay-family-chunked');
    for (const box of await page.$$('#replay-policy-choices input[type=checkbox]')) await box.check();
    await page.fill('#replay-kv', String(kvTokens));
    await page.fill('#replay-chunk', '64');
    await page.click('#replay-run');
    await page.waitForFunction(
      () => window.kvlabReplayResult !== undefined || !document.getElementById('replay-error').hidden,
      null,
      { timeout: 600000, polling: 500 }
    );
    const failed = await page.isVisible('#replay-error');
    if (failed) throw new Error(`the page's replay failed: ${await page.textContent('#replay-error')}`);
    return page.evaluate(() => window.kvlabReplayResult.policies);
  } finally {
    await page.close();
  }
}

const pct = (f) => (f === null || f === undefined ? '–' : `${f >= 0 ? '+' : '−'}${Math.abs(100 * f).toFixed(1)}`);

// The errors of every policy run, by `errorOf(entry)` (the priced error, or the grid-only one).
function summariseErrors(label, replays, errorOf) {
  const errors = [];
  let met = 0;
  let policies = 0;
  for (const { result } of replays) {
    for (const entry of Object.values(result)) {
      const error = errorOf(entry);
      if (!error) return;
      const { median_ttft: ttft, makespan } = error;
      errors.push(Math.abs(ttft), Math.abs(makespan));
      policies += 1;
      if (Math.abs(ttft) <= TARGET && Math.abs(makespan) <= TARGET) met += 1;
    }
  }
  errors.sort((a, b) => a - b);
  const median =
    errors.length % 2
      ? errors[(errors.length - 1) / 2]
      : (errors[errors.length / 2 - 1] + errors[errors.length / 2]) / 2;
  console.log(
    `${label}: median |error| ${(100 * median).toFixed(1)}%, largest ${(100 * errors[errors.length - 1]).toFixed(1)}%; ` +
      `${met} of ${policies} policy runs within ${100 * TARGET}% on both median TTFT and makespan`
  );
}

function summarise(name, replays) {
  summariseErrors(name, replays, (entry) => entry.error);
  summariseErrors(`${name}, priced without the prompt-pass part`, replays, (entry) => entry.error_without?.prompt_pass);
  summariseErrors(`${name}, priced on the grid alone`, replays, (entry) => entry.error_grid_only);
}

// The step check's passes of every policy by what ran before them, as (table - real) / real: decode
// passes 1-3 and 16+ passes after a prompt pass, prompt passes after a decode pass and after a prompt pass.
function historyLine(result) {
  const sums = {};
  const add = (key, group) => {
    sums[key] ??= { real: 0, table: 0 };
    sums[key].real += group.real_ms;
    sums[key].table += group.table_ms;
  };
  for (const { step_check: check } of Object.values(result)) {
    for (const group of check.decode_by_passes_since_prompt) {
      if (['1', '2', '3'].includes(group.passes_since_prompt)) add('decode 1-3 passes after a prompt pass', group);
      if (group.passes_since_prompt === '16+') add('16+', group);
    }
    for (const group of check.prompt_by_pass_before) {
      if (group.pass_before === 'decode') add('prompt passes after a decode pass', group);
      if (['prefill', 'nocache'].includes(group.pass_before)) add('after a prompt pass', group);
    }
  }
  return Object.entries(sums)
    .map(([key, { real, table }]) => `${key} ${pct((table - real) / real)}`)
    .join(', ');
}

function printReplay(name, index, { result, wall_s: wallS, others_s: othersS, steal_s: stealS }) {
  console.log(
    `\n${name} replay ${index + 1}: ${wallS.toFixed(0)} s, others ${othersS.toFixed(0)} s of CPU, steal ${stealS.toFixed(1)} s`
  );
  console.log(
    'policy            median TTFT  makespan   drift (makespan)   no prompt-pass part: median TTFT  makespan   grid alone: median TTFT  makespan'
  );
  for (const [policy, entry] of Object.entries(result)) {
    const noPromptPart = entry.error_without?.prompt_pass ?? {};
    const gridOnly = entry.error_grid_only ?? {};
    console.log(
      `${policy.padEnd(16)} ${pct(entry.error.median_ttft).padStart(12)} ${pct(entry.error.makespan).padStart(9)} ${pct(entry.drift.makespan).padStart(10)}` +
        `   ${pct(noPromptPart.median_ttft).padStart(32)} ${pct(noPromptPart.makespan).padStart(9)}` +
        `   ${pct(gridOnly.median_ttft).padStart(23)} ${pct(gridOnly.makespan).padStart(9)}`
    );
  }
  const afterPrompt = Object.values(result)[0]?.step_table?.after_prompt;
  if (afterPrompt) {
    const first = afterPrompt.prompt_rows.map(
      (rows, i) =>
        `${rows}: ${afterPrompt.ratio[i]
          .slice(0, 3)
          .map((r) => r.toFixed(2))
          .join(' ')}`
    );
    console.log(`decode passes 1-3 after a prompt pass of n rows, measured over rested: ${first.join(', ')}`);
  }
  const promptPass = Object.values(result)[0]?.step_table?.prompt_pass;
  if (promptPass) {
    const row = (ratios) => ratios.map((r) => r.toFixed(2)).join(' ');
    const afterDecode = promptPass.decode_rows.map(
      (rows, i) => `${rows} row${rows === 1 ? '' : 's'}: ${row(promptPass.after_decode[i])}`
    );
    const afterPrompt = promptPass.tokens.map((tokens, i) => `${tokens} tokens: ${row(promptPass.after_prompt[i])}`);
    console.log(
      `prompt passes of ${promptPass.tokens.join(', ')} tokens over right after one of their size: after a decode pass of ` +
        `${afterDecode.join('; ')}; after a prompt pass of ${afterPrompt.join('; ')}`
    );
  }
  console.log(`table vs real by what ran before: ${historyLine(result)}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const report = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model },
    policies: POLICIES,
    kv_tokens: options.kvTokens,
    targets: {},
  };
  let browser = null;
  let server = null;
  try {
    for (const target of options.targets) {
      let replayOnce;
      if (target === 'chromium') {
        requireDist();
        server = await startServer();
        browser = await startBrowser();
        replayOnce = () => chromiumReplay(browser.context, `${server.url}index.html`, options.kvTokens);
      } else {
        replayOnce = async () => cliReplay(target === 'node', options.kvTokens);
      }
      const replays = [];
      for (let i = 0; i < options.runs; i += 1) {
        replays.push(await timed(replayOnce));
        printReplay(target, i, replays[i]);
      }
      report.targets[target] = replays.map(({ result, ...seconds }) => ({
        ...seconds,
        policies: Object.fromEntries(
          Object.entries(result).map(([p, e]) => [
            p,
            {
              error: e.error,
              error_without: e.error_without,
              error_grid_only: e.error_grid_only,
              drift: e.drift,
              request_count: e.request_count,
              step_check: e.step_check,
              after_prompt: e.step_table?.after_prompt,
              prompt_pass: e.step_table?.prompt_pass,
            },
          ])
        ),
      }));
    }
    console.log('');
    for (const [target, replays] of Object.entries(report.targets))
      summarise(
        target,
        replays.map((r) => ({ result: r.policies }))
      );
    if (options.out) fs.writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    if (browser) await browser.close();
    if (server) await server.close();
  }
}

await main();
