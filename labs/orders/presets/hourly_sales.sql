SELECT hour_bucket, category, order_count,
       paid_order_count, gmv, paid_gmv
FROM analytics.ads_hourly_sales FINAL
ORDER BY hour_bucket DESC, gmv DESC
LIMIT 20;
