/**
 * The names under which an instance's network traffic travels, fixed once so that the simulator (its
 * OTLP push and the harness's import into VictoriaMetrics) and the engine (its counter sources) agree.
 * Each series is one cumulative byte counter per instance: its value at an instant is every byte the
 * instance sent (or received) since the start of its history, so the traffic of any half-open
 * interval is the counter at its end minus the counter at its start.
 */
export const trafficSeries = {
  egress: {
    otlp: "platform_a.instance.network.egress",
    prometheus: "platform_a_instance_network_egress_bytes_total",
  },
  ingress: {
    otlp: "platform_a.instance.network.ingress",
    prometheus: "platform_a_instance_network_ingress_bytes_total",
  },
} as const;

/** OTLP unit of the traffic series. */
export const trafficUnit = "By";
