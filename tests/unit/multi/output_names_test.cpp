// Output names: PyTorch's per-device, gathered (_full0) and copy (_full<i>) names from -o, the
// rank suffix of shards, SQLite, and finding per-device files on disk.
#include "drivers/multi/output_names.hpp"
#include "db/results_store.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace gemmtune {
namespace {

const Shard kNoShard;

TEST(OutputNames, DefaultNameIsPyTorchs) {
  const OutputNames n("tunableop_results0.csv", kNoShard);
  EXPECT_FALSE(n.sqlite());
  EXPECT_EQ(n.per_device(0), "tunableop_results0.csv");
  EXPECT_EQ(n.per_device(3), "tunableop_results3.csv");
  EXPECT_EQ(n.gathered(), "tunableop_results_full0.csv");
  EXPECT_EQ(n.copy(1), "tunableop_results_full1.csv");
}

TEST(OutputNames, PercentDMarksTheDevice) {
  const OutputNames n("out/res_%d_gpu.csv", kNoShard);
  EXPECT_EQ(n.per_device(2), "out/res_2_gpu.csv");
  EXPECT_EQ(n.gathered(), "out/res__full0_gpu.csv");
  EXPECT_EQ(n.copy(12), "out/res__full12_gpu.csv");
}

TEST(OutputNames, WithoutANumberTheDeviceGoesBeforeTheExtension) {
  const OutputNames n("/tmp/x/results.csv", kNoShard);
  EXPECT_EQ(n.per_device(1), "/tmp/x/results1.csv");
  EXPECT_EQ(n.gathered(), "/tmp/x/results_full0.csv");
}

TEST(OutputNames, OnlyTheDevicesPlaceChanges) {
  // PyTorch names copies by replacing every '0' of the gathered path.
  const OutputNames n("/data0/run10/tunableop_results0.csv", kNoShard);
  EXPECT_EQ(n.copy(2), "/data0/run10/tunableop_results_full2.csv");
  EXPECT_EQ(n.per_device(10), "/data0/run10/tunableop_results10.csv");
}

TEST(OutputNames, SqliteIsOneDatabase) {
  const OutputNames n("tuned.db", kNoShard);
  EXPECT_TRUE(n.sqlite());
  EXPECT_EQ(n.per_device(0), "tuned.db");
  EXPECT_EQ(n.per_device(5), "tuned.db");
  EXPECT_TRUE(n.existing_per_device().empty());
}

TEST(OutputNames, ShardsGetARankSuffix) {
  const Shard rank1{1, 2, "--shard"};
  const OutputNames n("tunableop_results0.csv", rank1);
  EXPECT_EQ(n.per_device(0), "tunableop_results0.rank1.csv");
  EXPECT_EQ(n.gathered(), "tunableop_results_full0.rank1.csv");
  EXPECT_EQ(OutputNames("t.db", rank1).per_device(0), "t.rank1.db");
  EXPECT_EQ(with_rank("a/b.csv", rank1), "a/b.rank1.csv");
  EXPECT_EQ(with_rank("a/b.csv", kNoShard), "a/b.csv");
}

TEST(OutputNames, FindsPerDeviceFilesButNotGatheredOnes) {
  testing::TempDir dir;
  for (const char* name : {"res0.csv", "res2.csv", "res_full0.csv", "res_full2.csv", "res.csv",
                           "resx.csv", "res3.db", "other1.csv", "res1.rank1.csv"}) {
    testing::write_text(dir / name, "");
  }
  const OutputNames n(dir / "res0.csv", kNoShard);
  const auto found = n.existing_per_device();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].first, 0);
  EXPECT_EQ(found[0].second, dir / "res0.csv");
  EXPECT_EQ(found[1].first, 2);

  // res01.csv is no device's file: per_device(1) is res1.csv, which would be read instead.
  testing::write_text(dir / "res01.csv", "");
  EXPECT_EQ(n.existing_per_device().size(), 2u);

  const auto ranked = OutputNames(dir / "res0.csv", Shard{1, 2, "x"}).existing_per_device();
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].first, 1);
}

// A one-device run given `-o tunableop_results0.csv` writes device 0's file of a multi-device
// run given the same `-o`; with `-o results.csv` the two write different files.
TEST(OutputNames, TheOneDeviceFileMayBeADevicesFile) {
  EXPECT_EQ(OutputNames("tunableop_results0.csv", kNoShard).single_device_ordinal(), 0);
  EXPECT_EQ(OutputNames("out/res12.csv", kNoShard).single_device_ordinal(), 12);
  EXPECT_EQ(OutputNames("tunableop_results0.csv", Shard{1, 2, "--shard"}).single_device_ordinal(),
            0);
  EXPECT_EQ(OutputNames("results.csv", kNoShard).single_device_ordinal(), std::nullopt);
  EXPECT_EQ(OutputNames("res%d.csv", kNoShard).single_device_ordinal(), std::nullopt);
  EXPECT_EQ(OutputNames("res007.csv", kNoShard).single_device_ordinal(), std::nullopt);
  EXPECT_EQ(OutputNames("tuned.db", kNoShard).single_device_ordinal(), std::nullopt);
}

TEST(OutputNames, SqliteExtensions) {
  EXPECT_TRUE(is_sqlite_path("a.db"));
  EXPECT_TRUE(is_sqlite_path("a.sqlite"));
  EXPECT_TRUE(is_sqlite_path("a.sqlite3"));
  EXPECT_FALSE(is_sqlite_path("a.csv"));
  // As open_results_store decides: any case.
  EXPECT_TRUE(is_sqlite_path("a.DB"));
  EXPECT_TRUE(is_sqlite_path("a.Sqlite3"));
  EXPECT_FALSE(is_sqlite_path("a.CSV"));
  // A multi-device run into t.DB shares the one database, as into t.db.
  EXPECT_EQ(OutputNames("t.DB", kNoShard).per_device(1), "t.DB");
}

}  // namespace
}  // namespace gemmtune
