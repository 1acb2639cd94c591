/**
 * The scenarios: benchmark cells that do not fit the target × workload × concurrency matrix. Each has
 * a name (selected with --only=<name>), runs with the harness run.mjs hands it
 * ({ opts, here, pinned, freePort, runLoad, startHttpServer }), and renders its own markdown section.
 * A scenario that cannot run here (a binary missing) returns { skipped: reason }.
 */
import { clusterScenario } from './cluster.mjs';
import { fanoutScenario } from './fanout.mjs';
import { runtimesScenario } from './runtimes.mjs';
import { tasksScenario } from './tasks.mjs';

export const SCENARIOS = [runtimesScenario, clusterScenario, fanoutScenario, tasksScenario];

export async function runScenarios(scenarios, harness) {
  const out = [];
  for (const s of scenarios) {
    console.log(`Scenario ${s.name}: ${s.title}`);
    const t0 = Date.now();
    let result;
    try {
      result = await s.run(harness);
    } catch (error) {
      result = { failed: String(error?.stack ?? error).slice(0, 800) };
    }
    if (result.skipped) console.log(`  SKIP ${s.name}: ${result.skipped}`);
    if (result.failed) console.log(`  FAILED ${s.name}: ${result.failed}`);
    out.push({ name: s.name, title: s.title, seconds: Math.round((Date.now() - t0) / 100) / 10, ...result });
  }
  return out;
}

export function renderScenarios(results) {
  if (!results.length) return '';
  const sections = results.map((r) => {
    const s = SCENARIOS.find((x) => x.name === r.name);
    const body = r.skipped ? `Skipped: ${r.skipped}\n` : r.failed ? `**Failed:** ${r.failed}\n` : s.render(r);
    return `### ${r.title} (\`--only=${r.name}\`, ${r.seconds} s)\n\n${body}`;
  });
  return `\n## Scenarios\n\nSee docs/benchmarks.md ("Scenarios") for what each measures.\n\n${sections.join('\n')}`;
}
