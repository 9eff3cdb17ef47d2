/* C reference: glibc clock_gettime against the vDSO function called directly (dlsym on linux-vdso.so.1). gcc -O2 vdso_vs_libc.c -ldl */
#include <stdio.h>
#include <time.h>
#include <sys/auxv.h>
#include <elf.h>
#include <string.h>
#include <dlfcn.h>
typedef int (*cg_t)(clockid_t, struct timespec*);
static long long now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1000000000LL+t.tv_nsec;}
int main(int argc,char**argv){
  void* h = dlopen("linux-vdso.so.1", RTLD_NOW|RTLD_NOLOAD);
  cg_t vd = (cg_t)dlsym(h,"__vdso_clock_gettime");
  cg_t lc = (cg_t)dlsym(RTLD_DEFAULT,"clock_gettime");
  int N=20000000; volatile long long sink=0; struct timespec ts;
  for(int rep=0;rep<5;rep++){
   for (int clk=0; clk<2; clk++){
    long long t0=now(); for(int i=0;i<N;i++){lc(clk,&ts); sink+=ts.tv_nsec;} long long t1=now();
    for(int i=0;i<N;i++){vd(clk,&ts); sink+=ts.tv_nsec;} long long t2=now();
    printf("clk %d libc %.2f ns  vdso %.2f ns\n",clk,(t1-t0)/(double)N,(t2-t1)/(double)N);
   }
  }
  return 0;
}
