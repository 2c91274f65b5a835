/** The environment variable that marks the processes of one test run (set by test/support/leak-check.ts). */
export const RUN_MARK = 'MSS_TEST_RUN';
