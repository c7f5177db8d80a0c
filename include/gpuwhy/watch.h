/* The text of `gpuwhy watch`: each tick of gw_record_run (record.h) laid out
 * as a frame of lines: per GPU, SM activity beside GPU-Util, power against its
 * limit, clocks and why they are low, PCIe and memory; then the CPU, the
 * target's processes and the disks. The view keeps the newest reading of every
 * metric, since the sampler reads some only once a second or less. The
 * caller draws the lines (curses or plain text). */
#ifndef GPUWHY_WATCH_H
#define GPUWHY_WATCH_H

struct gw_tick;
struct gw_watch_view;

struct gw_watch_view *gw_watch_view_new(void);
void gw_watch_view_free(struct gw_watch_view *v);

/* Lay out the frame for this tick (call it from gw_record_opts.on_tick). */
void gw_watch_view_update(struct gw_watch_view *v, const struct gw_tick *tick);

/* The frame's lines, each at most 199 bytes; *alert is 1 for a line that
 * should stand out (no GPU data, a lost GPU, GPU-Util far above SM activity,
 * a target process or a disk near saturation). */
int gw_watch_view_lines(const struct gw_watch_view *v);
const char *gw_watch_view_line(const struct gw_watch_view *v, int i, int *alert);

#endif
