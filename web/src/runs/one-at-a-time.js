// The page's one rule for runs that compete for the processor: only one runs at a time. Every runner
// (the lab, each panel) registers here how to tell that it is running and how to refresh its buttons;
// a runner may name the runners that stop it when they start (the Memory section yields to a new lab
// run, whose step times replace its inputs), and those never block them.
export function oneRunAtATime() {
  const runners = new Map(); // name -> { running(), sync(), yieldsTo: [names] }

  return {
    // running() -> boolean; sync(): refresh the runner's buttons; yieldsTo: runners that stop this one.
    add(name, { running, sync = () => {}, yieldsTo = [] }) {
      runners.set(name, { running, sync, yieldsTo });
    },

    // Whether a runner other than `name` holds the processor (runners that yield to `name` do not).
    busyFor(name) {
      for (const [other, runner] of runners) {
        if (other !== name && !runner.yieldsTo.includes(name) && runner.running()) return true;
      }
      return false;
    },

    // The running runner, other than `name`, that blocks it, or null.
    blocking(name) {
      for (const [other, runner] of runners) {
        if (other !== name && !runner.yieldsTo.includes(name) && runner.running()) return other;
      }
      return null;
    },

    // Runners that yield to `name` and are running now: `name` stops them before it starts.
    yielding(name) {
      return [...runners]
        .filter(([other, runner]) => other !== name && runner.yieldsTo.includes(name) && runner.running())
        .map(([other]) => other);
    },

    // Every runner refreshes its buttons (after any runner starts or stops).
    sync() {
      for (const runner of runners.values()) runner.sync();
    },
  };
}
