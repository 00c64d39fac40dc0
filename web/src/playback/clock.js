// Simulated time for a chapter's playback: play and pause (requestAnimationFrame moves the clock by
// the wall time since the last frame times the speed), one step to the next or previous event, and
// seek. Nothing is simulated here: the chapter draws the result's timelines at clock.t_ms.
// With reduced motion there is no animation: play takes one step instead.

import { nextEvent, previousEvent } from './events.js';

export class PlaybackClock {
  // endMs: where playback stops; events: sorted distinct event times (events.js); speed: simulated ms
  // per wall-clock ms; onChange(reason): 'frame' | 'step' | 'seek' | 'play' | 'pause' | 'end'.
  constructor({ endMs, events, speed = 1, reducedMotion = false, onChange = () => {} }) {
    this.endMs = endMs;
    this.events = events;
    this.speed = speed;
    this.reducedMotion = reducedMotion;
    this.onChange = onChange;
    this.t_ms = 0;
    this.playing = false;
    this.frame = 0;
    this.lastFrameMs = null;
    this.tick = this.tick.bind(this);
  }

  play() {
    if (this.reducedMotion) {
      this.step(1);
      return;
    }
    if (this.playing) return;
    if (this.t_ms >= this.endMs) this.t_ms = 0;
    this.playing = true;
    this.lastFrameMs = null;
    this.frame = requestAnimationFrame(this.tick);
    this.onChange('play');
  }

  pause(reason = 'pause') {
    if (this.playing) {
      this.playing = false;
      cancelAnimationFrame(this.frame);
    }
    this.onChange(reason);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  // Exactly one event forward (direction 1) or back (-1); pauses.
  step(direction) {
    if (this.playing) {
      this.playing = false;
      cancelAnimationFrame(this.frame);
    }
    const t = direction > 0 ? nextEvent(this.events, this.t_ms) : previousEvent(this.events, this.t_ms);
    if (t !== null) this.t_ms = Math.min(t, this.endMs);
    else if (direction < 0) this.t_ms = 0;
    this.onChange('step');
  }

  seek(t) {
    this.t_ms = Math.max(0, Math.min(this.endMs, t));
    this.lastFrameMs = null;
    this.onChange('seek');
  }

  setSpeed(speed) {
    this.speed = speed;
  }

  tick(now) {
    if (!this.playing) return;
    if (this.lastFrameMs !== null) this.t_ms = Math.min(this.endMs, this.t_ms + (now - this.lastFrameMs) * this.speed);
    this.lastFrameMs = now;
    if (this.t_ms >= this.endMs) {
      this.playing = false;
      this.onChange('end');
      return;
    }
    this.onChange('frame');
    this.frame = requestAnimationFrame(this.tick);
  }

  destroy() {
    this.playing = false;
    cancelAnimationFrame(this.frame);
  }
}
