// The chapter embeds of one post share one lab run. They are sibling frames of one parent page at one
// origin, so each can see the others (parent.frames, whatever the parent's origin) and talk to them
// over a BroadcastChannel. An embed asked to run follows a sibling that is measuring the same options
// (or has measured them, when this embed has not run yet), and measures only when none is: the one
// that measures sends its progress, its parts and its result to the channel as they land, and its
// followers render them as their own. A BroadcastChannel reaches every page of the origin (other tabs,
// other posts), so every message names its sender and a follower listens to its leader alone.

const CHANNEL = 'kvlab-post';
const PEER_KEY = '__kvlabPeer'; // each embed's public facts, on its window, for its siblings to read

function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The siblings' public facts ({id, key, state}), in frame order; frames of other origins are skipped.
function siblingPeers() {
  const peers = [];
  const frames = window.parent.frames;
  for (let i = 0; i < frames.length; i += 1) {
    try {
      const peer = frames[i] !== window && frames[i][PEER_KEY];
      if (peer && typeof peer.id === 'string') peers.push({ id: peer.id, key: peer.key, state: peer.state });
    } catch (error) {
      // A frame of another origin: not a kvlab embed of this post.
    }
  }
  return peers;
}

// Returns null when this page is not embedded (or the browser has no BroadcastChannel): it runs alone.
export function postPeers() {
  if (window.parent === window || typeof BroadcastChannel !== 'function') return null;
  // state: idle (has not run), measuring, measured, following, or ran (followed, or stopped)
  const self = { id: randomId(), key: null, state: 'idle' };
  window[PEER_KEY] = self;
  const channel = new BroadcastChannel(CHANNEL);
  let log = []; // this embed's events of its current measurement, for followers that join late
  let run = 0;
  let following = null; // { leader, run (null until its log arrived), onEvent }

  channel.onmessage = ({ data }) => {
    if (!data || typeof data !== 'object') return;
    const leading = self.state === 'measuring' || self.state === 'measured';
    if (data.type === 'join' && data.to === self.id && leading) {
      channel.postMessage({ type: 'log', from: self.id, to: data.from, run, events: log });
    } else if (following && data.from === following.leader) {
      if (data.type === 'log' && data.to === self.id && following.run === null) {
        following.run = data.run;
        for (const event of data.events) following.onEvent(event);
      } else if (data.type === 'event' && data.run === following.run) {
        following.onEvent(data.event);
      } else if (data.type === 'gone') {
        following.onEvent({ kind: 'gone' });
      }
    }
  };
  window.addEventListener('pagehide', () => {
    if (self.state === 'measuring' || self.state === 'measured') channel.postMessage({ type: 'gone', from: self.id });
  });

  return {
    id: self.id,

    // key: the run's options as text. Returns the id of the sibling to follow, or null: this embed
    // measures (and leads). A sibling that finished is followed only by an embed that has not run.
    claim(key) {
      const firstRun = self.state === 'idle';
      const leader = siblingPeers().find(
        (peer) => peer.key === key && (peer.state === 'measuring' || (firstRun && peer.state === 'measured'))
      );
      following = null;
      self.key = key;
      if (leader) {
        self.state = 'following';
        return leader.id;
      }
      self.state = 'measuring';
      run += 1;
      log = [];
      return null;
    },

    // The leader's side: one event of its measurement ({kind: 'progress' | 'part' | 'result' | 'error'
    // | 'cancel', ...}); a result, an error or a cancel ends it.
    send(event) {
      if (self.state !== 'measuring') return;
      log.push(event);
      channel.postMessage({ type: 'event', from: self.id, run, event });
      if (event.kind !== 'progress' && event.kind !== 'part') self.state = event.kind === 'result' ? 'measured' : 'ran';
    },

    // The follower's side: onEvent(event) gets the leader's events so far, then each as it comes,
    // and {kind: 'gone'} if the leader's page goes away.
    follow(leader, onEvent) {
      following = { leader, run: null, onEvent };
      channel.postMessage({ type: 'join', from: self.id, to: leader });
    },

    // Stops following (a cancel, or the leader's run ended).
    unfollow() {
      following = null;
      if (self.state === 'following') self.state = 'ran';
    },
  };
}
