/**
 * Every browser test, in one file so a machine without Chromium prints one line about skipping them
 * (see support.ts). The suites themselves live in *.suite.ts.
 */
import './playground.suite.js';
import './cors.suite.js';
import './skills.suite.js';
import './card.suite.js';
import './stop.suite.js';
import './events.suite.js';
