// The page's run store: what the runs have produced, in one place that the chapters and the lab
// bench's panels both subscribe to, instead of telling each other through callbacks or document events.
// It is the page's one channel for results.
//
//   settings   the lab's settings as last accepted (the form's valid settings, as the URL hash has them)
//   lab        the lab's run in progress, or the last one (runs/lab-run.js): { run (counts the runs
//              started), state ('loading', 'ready', 'running', 'done', 'cancelled' or 'error'), phase (where
//              it is, in words), progress (0 to 1), error (null, or the last run's: {kind, message, detail,
//              field (the setting the module refused) or restarted, kept and rerun}), blocked (another run
//              holds the processor), parts (what has arrived of it: first_answer (Part A from the first run
//              of each path, marked provisional), answer, steps, result) }
//   labResult  the last finished lab run's whole result (its settings in result.settings); kept while a
//              new run goes, since the Memory section simulates on its step table
//   module     the lab worker's ready message (the module's version, presets and facts), once it is ready
//   modelFiles the reader's model files as last picked ({files, name}, models/picked.js), or null
//   jobs       each job panel's run (runs/job-run.js), by name (simd, memory, replay): { state ('waiting',
//              'ready', 'running', 'done', 'cancelled' or 'error'), phase (null: the panel's first line),
//              progress (0 to 1), error (null, {kind, message, detail} or {field, detail}), blocked }
//   memory     the Memory section's last result on the current lab run's step table (null from the
//              moment a new lab run starts)
//   replay     the "Simulated vs real" panel's last result
//   simd       the "SIMD vs scalar vs JavaScript" panel's last result
//   hardwareRun the hardware switch's choice and the modeling of it (runs/hardware-run.js)
//   hardware   the hardware switch's last modeled server
//   figure     the last chapter figure that landed: {chapter, elapsed_ms (since Run was pressed)}
// runs/publish.js hands each result on to whoever reads the page from outside.
//   shareUrl   the last lab result's link (runs/share.js), once made (also result.share_url)
//   shared     the result a link carried (runs/share.js's record), or null

const LAB_LOADING = {
  run: 0,
  state: 'loading',
  phase: 'Loading the WebAssembly module…',
  progress: 0,
  error: null,
  blocked: false,
  parts: {},
};

// initial: the state's first values.
export function runStore(initial) {
  let state = {
    settings: null,
    module: null,
    modelFiles: null,
    lab: LAB_LOADING,
    labResult: null,
    jobs: {},
    memory: null,
    replay: null,
    simd: null,
    hardware: null,
    figure: null,
    ...initial,
  };
  const listeners = new Set();

  // Replaces the keys of `changes`; every listener then gets the new state and the changes.
  function set(changes) {
    state = { ...state, ...changes };
    for (const listener of [...listeners]) listener(state, changes);
  }

  return {
    get: () => state,
    set,
    // listener(state, changes), called after every change; returns the function that unsubscribes it.
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
