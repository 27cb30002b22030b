/**
 * The help a learner can ask of an open quiz (a platform-neutral contract:
 * adapters decode it from controls and typed commands; the engine acts on it,
 * see core/struggle.ts).
 */

/** What a help control asks for: hint, try again, explain another way, show the answer, or "not sure" (an answer). */
export type HelpKind = "hint" | "again" | "explain" | "show" | "not-sure";

/** Every help kind; a component id carries its index here. */
export const HELP_KINDS: readonly HelpKind[] = ["hint", "again", "explain", "show", "not-sure"];
