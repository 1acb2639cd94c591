/** The math example: four tools, a prompt, a static resource and a template. Served by http.ts and stdio.ts. */
import * as z from 'zod';
import { MiniMCP, UserError, type MiniMCPOptions } from '../../src/index.js';

const operands = z.object({
  a: z.number().describe('The first number'),
  b: z.number().describe('The second number'),
});
const result = z.object({ result: z.number() });

/** `options`: extra server options (the cluster's shared state and secret). */
export function createMathServer(options: Partial<MiniMCPOptions> = {}): MiniMCP {
  const mcp = new MiniMCP({
    ...options,
    name: 'minimcp-math',
    version: '1.0.0',
    title: 'MiniMCP math',
    description: 'Arithmetic: add, subtract, multiply and divide, a prompt and two resources.',
    instructions: 'Arithmetic tools. Use divide for quotients; dividing by zero is reported as a tool error.',
  });

  const annotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
  mcp.tool('add', { description: 'Add two numbers', input: operands, output: result, annotations }, ({ a, b }) => ({ result: a + b }));
  mcp.tool('subtract', { description: 'Subtract b from a', input: operands, output: result, annotations }, ({ a, b }) => ({ result: a - b }));
  mcp.tool('multiply', { description: 'Multiply two numbers', input: operands, output: result, annotations }, ({ a, b }) => ({ result: a * b }));
  mcp.tool('divide', { description: 'Divide a by b', input: operands, output: result, annotations }, ({ a, b }) => {
    if (b === 0) throw new UserError('Cannot divide by zero'); // meant for the model: shown as the isError text
    return { result: a / b };
  });

  mcp.prompt(
    'solve_step_by_step',
    {
      title: 'Solve step by step',
      description: 'Guides the model through a math problem one step at a time',
      arguments: z.object({ problem: z.string().describe('The problem to solve') }),
    },
    ({ problem }) =>
      `Solve this problem step by step. State each step, use the math tools for arithmetic, then give the answer.\n\nProblem: ${problem}`,
  );

  mcp.resource('math://constants/pi', { name: 'pi', description: 'The constant pi', mimeType: 'text/plain' }, () => String(Math.PI));

  mcp.resourceTemplate(
    'math://tables/{n}',
    {
      name: 'multiplication-table',
      description: 'The multiplication table of n (1 to 10)',
      mimeType: 'text/plain',
      complete: { n: (value) => ['2', '3', '4', '5', '6', '7', '8', '9', '10', '12'].filter((n) => n.startsWith(value)) },
    },
    (_uri, { n }) => {
      const base = Number(n);
      if (!Number.isInteger(base) || base < 1 || base > 1000) return undefined; // not found
      return Array.from({ length: 10 }, (_, i) => `${base} x ${i + 1} = ${base * (i + 1)}`).join('\n');
    },
  );
  return mcp;
}

// `npm run dev` (minimcp dev) serves the default export: a MiniMCP, or a function returning one.
export default createMathServer;
