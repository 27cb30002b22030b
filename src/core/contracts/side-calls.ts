/**
 * How a model recognises the engine's side calls (grading a typed answer, a
 * hint): part of the contract between the engine and any model, so a model
 * (the built-in demo) reads it here and never imports the engine's files.
 */

/** The grading call's structured output name: a model that sees it answers with a verdict. */
export const GRADE_OUTPUT_NAME = "learnharness_grade";

/** The first line of the hint call's system prompt: a model that sees it answers with one hint. */
export const HINT_REQUEST_MARKER = "[learnharness hint request]";
