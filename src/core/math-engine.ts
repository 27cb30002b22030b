/**
 * The part of mathjs the answer checks use: its expression parser (answer-expressions.ts reads the tree with
 * its own evaluator) and its unit table (answer-units.ts). One mathjs instance built from only those
 * factories: the bundle (scripts/build.ts bundles mathjs, tree-shaken) then loads about a fifth of the
 * library instead of all of it, which every process start paid for (about 2 s of a 2.5 s playground start on a
 * busy machine; a fifth of that on a quiet one).
 */

import { create, parseDependencies, unitDependencies } from "mathjs";

// Typed as optional by mathjs's declarations; present in every build of it this project installs.
if (!parseDependencies || !unitDependencies) throw new Error("mathjs lacks its parse or unit factories");
const math = create({ parseDependencies, unitDependencies });

/** mathjs's parser (text to a node tree; nothing is evaluated). */
export const parse = math.parse;
/** mathjs's unit constructor: a number and a unit name. */
export const unit = math.unit;
