/**
 * Imported first by a child process that must not outlive its parent (a worker's sandbox, a verification pool
 * member): when the parent dies, even by SIGKILL, its IPC channel closes, and the child leaves. Checked at once as
 * well as on 'disconnect': a child whose parent died while it was still loading its modules (seconds on a busy
 * machine: sharp, the C2PA WASM) registered its listener after the event and would otherwise linger as an orphan.
 */
if (process.send && !process.connected) process.exit(1);
process.once('disconnect', () => process.exit(1));
