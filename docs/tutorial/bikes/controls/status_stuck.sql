-- Mutant of jobs/trips.sql for control status_stuck: a trip never leaves
-- RIDING, though its end station and duration arrive.
SELECT
  r.ride_id,
  r.bike_id,
  r.rider,
  r.station AS start_station,
  a.station AS end_station,
  'RIDING' AS status,
  r.started_at,
  a.arrived_at AS ended_at,
  TIMESTAMPDIFF(SECOND, r.started_at, a.arrived_at) AS duration_s,
  GREATEST(r.started_at, COALESCE(a.arrived_at, r.started_at)) AS updated_at
FROM rides AS r
LEFT JOIN arrivals AS a ON a.ride_id = r.ride_id
