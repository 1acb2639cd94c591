/** The protocol revisions this server speaks, by family (see revision.ts). */
import { handshake } from './handshake.js';
import type { Era, Revision } from './revision.js';
import { stateless } from './stateless.js';

export const REVISIONS: Readonly<Record<Era, Revision>> = { handshake, stateless };

export const revisionOf = (era: Era): Revision => REVISIONS[era];
