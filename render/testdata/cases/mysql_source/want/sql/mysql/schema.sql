-- Rendered by labgen from the lab "mysql_source". Do not edit: change the lab and render again.
CREATE DATABASE IF NOT EXISTS `src` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
USE `src`;

CREATE TABLE IF NOT EXISTS `items` (
  `item_id` BIGINT NOT NULL,
  `name` VARCHAR(32) NOT NULL,
  `price` DECIMAL(10,2) NOT NULL,
  `created_at` DATETIME(3) NOT NULL,
  PRIMARY KEY (`item_id`)
) ENGINE = InnoDB;
