/**
 * The rule of a cloud name in settings that name the cloud events are booked under (the simulator's
 * `SVC_SIM_CLOUD`, the collector's `SVC_OSC_CLOUD`): what ingest accepts as `cloud`, without spaces.
 */
export const cloudNameRule = {
  maxLength: 512,
  pattern: /^(?!meta$|partner$)\S+$/,
  describe: "a cloud name without spaces, other than meta or partner",
};
