/**
 * An MCP App: `roll_dice` rolls dice and names a `ui://` page that shows them. A host that supports the
 * `io.modelcontextprotocol/ui` extension renders the result with dice.html; any other client still gets
 * the rolls as text. The page's "Roll one more" button calls `roll_one`, a tool only the app may call,
 * which clients that cannot show apps do not even see.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { MiniMCP, addApp, addAppTool, supportsApps } from '../../src/index.js';

export const DICE_APP = 'ui://dice/roller.html';
const page = readFileSync(new URL('./dice.html', import.meta.url), 'utf8');

const roll = (sides: number, count: number): number[] => Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
const Rolled = z.object({ sides: z.number(), rolls: z.array(z.number()), total: z.number() });
const rolled = (sides: number, rolls: number[]) => ({ sides, rolls, total: rolls.reduce((a, b) => a + b, 0) });

export function createDiceMcp(): MiniMCP {
  const mcp = new MiniMCP({ name: 'minimcp-dice', version: '1.0.0' });
  // One call: the page (a ui:// resource) and the tool that shows its results with it.
  addApp(mcp, { uri: DICE_APP, html: page, title: 'Dice roller', prefersBorder: true }, 'roll_dice', {
    description: 'Rolls dice and shows them',
    input: z.object({ sides: z.number().int().min(2).max(100).default(6), count: z.number().int().min(1).max(10).default(2) }),
    output: Rolled,
  }, ({ sides, count }) => rolled(sides, roll(sides, count)));
  // A second tool for the same page: for the app only, and listed only to clients that can show apps.
  addAppTool(mcp, 'roll_one', {
    app: DICE_APP,
    visibility: ['app'],
    visible: supportsApps,
    description: 'Rolls one more die for the dice roller',
    input: z.object({ sides: z.number().int().min(2).max(100) }),
    output: Rolled,
  }, ({ sides }) => rolled(sides, roll(sides, 1)));
  return mcp;
}
