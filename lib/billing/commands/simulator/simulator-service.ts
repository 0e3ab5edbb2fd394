/** The `service` every log line of the simulator carries. */
export const simulatorService = "svc-simulator";
